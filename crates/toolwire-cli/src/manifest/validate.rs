//! Checks a manifest as read into [`ToolDef`]s, with an error at the span of the first
//! problem.

use std::collections::HashSet;

use serde_json::Value;
use toml::Spanned;
use toolwire::TaskSupport;
use toolwire_process::argv::OptionValues;
use toolwire_process::{MediaOutput, Template};

use super::checker::{Checked, Checker};
use super::spec::{CommandSpec, HttpSpec, OptionValuesSpec, ToolSpec};
use super::{CommandDef, HttpDef, ToolDef, ToolKind};

impl Checker<'_> {
    /// Checks every tool, and that no two share a name.
    pub(super) fn tools(&self, specs: Vec<ToolSpec>) -> Checked<Vec<ToolDef>> {
        let mut seen = HashSet::new();
        let mut tools = Vec::with_capacity(specs.len());
        for spec in specs {
            if !seen.insert(spec.name.get_ref().clone()) {
                let message = format!("duplicate tool name {:?}", spec.name.get_ref());
                return Err(self.error(spec.name.span(), message));
            }
            tools.push(self.tool(spec)?);
        }
        Ok(tools)
    }

    fn tool(&self, spec: ToolSpec) -> Checked<ToolDef> {
        let name = spec.name.get_ref().clone();
        let properties = declared(spec.parameters.as_ref().map(Spanned::get_ref));
        let kind = match (spec.command, spec.http) {
            (Some(command), None) => {
                ToolKind::Command(Box::new(self.command(&name, command, &properties)?))
            }
            (None, Some(http)) => ToolKind::Http(self.http(&name, http, &properties)?),
            (Some(_), Some(http)) => {
                let message =
                    format!("tool {name:?} has both [tool.command] and [tool.http]; keep one");
                return Err(self.error(http.span(), message));
            }
            (None, None) => {
                let message =
                    format!("tool {name:?} needs a [tool.command] or a [tool.http] table");
                return Err(self.error(spec.name.span(), message));
            }
        };
        let concurrency = match spec.concurrency {
            Some(limit) if *limit.get_ref() == 0 => {
                return Err(self.error(limit.span(), "concurrency must be at least 1"));
            }
            limit => limit.map(|limit| *limit.get_ref() as usize),
        };
        let task_support = match &spec.task {
            None => TaskSupport::Forbidden,
            Some(word) => match word.get_ref().as_str() {
                "forbidden" => TaskSupport::Forbidden,
                "optional" => TaskSupport::Optional,
                "required" => TaskSupport::Required,
                other => {
                    let message = format!(
                        "task must be \"forbidden\", \"optional\" or \"required\", not {other:?}"
                    );
                    return Err(self.error(word.span(), message));
                }
            },
        };
        Ok(ToolDef {
            name_span: spec.name.span(),
            parameters_span: spec.parameters.as_ref().map(Spanned::span),
            name,
            description: spec.description,
            title: spec.title,
            parameters: spec.parameters.map(Spanned::into_inner),
            strict: spec.strict,
            hints: [spec.read_only, spec.destructive, spec.idempotent, spec.open_world],
            needs_approval: spec.needs_approval,
            concurrency,
            task_support,
            defer_loading: spec.defer_loading,
            kind,
        })
    }

    fn command(
        &self,
        tool: &str,
        spec: Spanned<CommandSpec>,
        properties: &Properties,
    ) -> Checked<CommandDef> {
        let spec = spec.into_inner();
        let mut argv = spec.argv.get_ref().iter();
        let Some(program) = argv.next() else {
            return Err(self.error(
                spec.argv.span(),
                format!("the argv of {tool:?} is empty: it needs a program"),
            ));
        };
        let program_template = self.template(tool, program, properties)?;
        if !program_template.is_literal() || program.get_ref().is_empty() {
            let message = "the program (the first argv element) must be a fixed name or path";
            return Err(self.error(program.span(), message));
        }
        let args =
            argv.map(|arg| self.template(tool, arg, properties)).collect::<Checked<Vec<_>>>()?;
        let (json_output, media_output) = self.output(spec.output, spec.output_file)?;
        let option_values = self.option_values(tool, spec.allow_option_values, &args)?;
        let mut def = CommandDef::new(program.get_ref().clone(), args);
        def.cwd = spec.cwd.map(|cwd| self.folder.join(cwd.get_ref()));
        def.env = spec.env;
        def.timeout = self.duration(spec.timeout)?;
        def.output_limit = self.limit(spec.output_limit)?;
        def.json_output = json_output;
        def.media_output = media_output;
        def.option_values = option_values;
        def.sandbox = self.sandbox(spec.sandbox)?;
        Ok(def)
    }

    /// `output` and `output_file`: whether stdout is JSON, or which content part the result
    /// carries.
    fn output(
        &self,
        output: Option<Spanned<String>>,
        file: Option<Spanned<String>>,
    ) -> Checked<(bool, Option<MediaOutput>)> {
        let word = output.as_ref().map(|output| output.get_ref().as_str());
        let media = match word {
            None | Some("text") => None,
            Some("json") => return self.no_file(file).map(|()| (true, None)),
            Some(mime) if is_mime_type(mime) => Some(mime.to_owned()),
            Some(other) => {
                let message = format!(
                    "unknown output {other:?}: expected \"text\", \"json\", or a MIME type such as \"image/png\""
                );
                let span = output.as_ref().map_or(0..0, Spanned::span);
                return Err(self.error(span, message));
            }
        };
        let Some(mime) = media else { return self.no_file(file).map(|()| (false, None)) };
        let Some(file) = file else { return Ok((false, Some(MediaOutput::stdout(mime)))) };
        MediaOutput::file(mime, file.get_ref())
            .map(|media| (false, Some(media)))
            .map_err(|why| self.error(file.span(), why))
    }

    /// Refuses an `output_file` where `output` is not a MIME type.
    fn no_file(&self, file: Option<Spanned<String>>) -> Checked<()> {
        match file {
            None => Ok(()),
            Some(file) => Err(self.error(
                file.span(),
                "output_file needs output to be the file's MIME type, such as output = \"image/png\"",
            )),
        }
    }

    /// `allow_option_values`, whose names must be placeholders of the argv.
    fn option_values(
        &self,
        tool: &str,
        spec: Option<Spanned<OptionValuesSpec>>,
        args: &[Template],
    ) -> Checked<OptionValues> {
        let Some(spec) = spec else { return Ok(OptionValues::None) };
        let span = spec.span();
        match spec.into_inner() {
            OptionValuesSpec::All(true) => Ok(OptionValues::All),
            OptionValuesSpec::All(false) => Ok(OptionValues::None),
            OptionValuesSpec::Only(names) => {
                let known =
                    |name: &String| args.iter().any(|t| t.placeholders().any(|p| p == name));
                if let Some(unknown) = names.iter().find(|name| !known(name)) {
                    let message = format!(
                        "allow_option_values names {unknown:?}, which is not a placeholder of the argv of {tool:?}"
                    );
                    return Err(self.error(span, message));
                }
                Ok(OptionValues::Only(names))
            }
        }
    }

    fn http(
        &self,
        tool: &str,
        spec: Spanned<HttpSpec>,
        properties: &Properties,
    ) -> Checked<HttpDef> {
        let spec = spec.into_inner();
        let url = self.template(tool, &spec.url, properties)?;
        if !spec.url.get_ref().starts_with("http://") {
            let message = "only plain http:// URLs are supported (this build has no TLS)";
            return Err(self.error(spec.url.span(), message));
        }
        let method = match &spec.method {
            None => reqwest::Method::GET,
            Some(method) => reqwest::Method::from_bytes(method.get_ref().to_uppercase().as_bytes())
                .map_err(|_| {
                    self.error(method.span(), format!("invalid HTTP method {:?}", method.get_ref()))
                })?,
        };
        Ok(HttpDef {
            method,
            url,
            headers: spec.headers.into_iter().collect(),
            timeout: self.duration(spec.timeout)?,
            output_limit: self.limit(spec.output_limit)?,
        })
    }

    /// Parses a template, whose placeholders must be declared parameters.
    fn template(
        &self,
        tool: &str,
        text: &Spanned<String>,
        properties: &Properties,
    ) -> Checked<Template> {
        let template = Template::parse(text.get_ref())
            .map_err(|why| self.error(text.span(), why.to_string()))?;
        if let Some(undeclared) = template.placeholders().find(|name| !properties.has(name)) {
            let message = format!(
                "placeholder {{{undeclared}}} is not a property of the parameters of {tool:?}"
            );
            return Err(self.error(text.span(), message));
        }
        Ok(template)
    }
}

/// The property names a schema declares; none when it has no `properties`.
struct Properties(Option<HashSet<String>>);

impl Properties {
    fn has(&self, name: &str) -> bool {
        self.0.as_ref().is_some_and(|names| names.contains(name))
    }
}

fn declared(parameters: Option<&Value>) -> Properties {
    let properties =
        parameters.and_then(|schema| schema.get("properties")).and_then(Value::as_object);
    Properties(properties.map(|properties| properties.keys().cloned().collect()))
}

/// Whether `text` reads as a MIME type: `type/subtype`, with no space.
fn is_mime_type(text: &str) -> bool {
    let Some((kind, subtype)) = text.split_once('/') else { return false };
    let token = |part: &str| {
        !part.is_empty()
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    token(kind) && token(subtype.split(';').next().unwrap_or_default().trim())
}
