//! [`Part`]: one piece of a result's content, and [`PartKind`], what kind it is.

use std::fmt;

use bytes::Bytes;
use serde_json::{Map, Value};

/// What kind of content a [`Part`] is.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartKind {
    /// Text the model reads.
    Text,
    /// An image, such as a PNG or a JPEG.
    Image,
    /// A sound, such as a WAV or an MP3.
    Audio,
    /// A named document, such as a PDF.
    File,
    /// An embedded resource: a URI with its text or bytes.
    Resource,
    /// A link to a resource, without its content.
    Link,
}

impl PartKind {
    /// Its name in the parts' JSON and in messages: `"text"`, `"image"`, `"audio"`,
    /// `"file"`, `"resource"` or `"resource_link"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Image => "image",
            Self::Audio => "audio",
            Self::File => "file",
            Self::Resource => "resource",
            Self::Link => "resource_link",
        }
    }
}

impl fmt::Display for PartKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One piece of a [`ToolResult`](crate::ToolResult)'s content, in the order the model reads
/// it: text, an image, audio, a file, an embedded resource or a resource link.
///
/// Bytes are held once, as [`Bytes`]: cloning a part, a result or a receipt copies no media,
/// and base64 appears only on the wire. A part serializes as the MCP content block of its
/// kind (a file as `{"type": "file", "name", "mimeType", "data"}`), with `data` and `blob` in
/// base64, and reads back equal.
///
/// ```
/// use serde_json::json;
/// use toolwire::media::{Part, PartKind};
///
/// let png = b"\x89PNG\r\n\x1a\n....".to_vec();
/// let part = Part::image("image/png", png);
/// assert_eq!(part.kind(), PartKind::Image);
/// assert_eq!(part.size(), 12);
/// assert_eq!(
///     serde_json::to_value(&part).unwrap(),
///     json!({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgouLi4u"})
/// );
///
/// let pdf = Part::file("report.pdf", "application/pdf", b"%PDF-1.7".to_vec());
/// assert_eq!(pdf.name(), Some("report.pdf"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub(super) body: Body,
    /// The fields of the MCP block it came from that toolwire does not read (`annotations`,
    /// `_meta`, a link's `icons`), kept as they were, so that a re-served block is the same
    /// block.
    pub(super) extra: Option<Box<Map<String, Value>>>,
}

/// What a part holds.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Body {
    Text(String),
    Media(Media),
    Resource(Resource),
    Link(Link),
}

/// The bytes of an image, a sound or a file.
#[derive(Clone, PartialEq)]
pub(super) struct Media {
    pub(super) kind: PartKind,
    pub(super) mime_type: String,
    pub(super) data: Bytes,
    /// A file's name.
    pub(super) name: Option<String>,
}

impl fmt::Debug for Media {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Media")
            .field("kind", &self.kind)
            .field("mime_type", &self.mime_type)
            .field("bytes", &self.data.len())
            .field("name", &self.name)
            .finish()
    }
}

/// An embedded resource.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Resource {
    pub(super) uri: String,
    pub(super) mime_type: Option<String>,
    pub(super) content: ResourceContent,
    /// The resource's own `_meta`.
    pub(super) meta: Option<Value>,
}

/// An embedded resource's content.
#[derive(Clone, PartialEq)]
pub(super) enum ResourceContent {
    Text(String),
    Blob(Bytes),
}

impl fmt::Debug for ResourceContent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(text) => f.debug_tuple("Text").field(text).finish(),
            Self::Blob(bytes) => write!(f, "Blob({} bytes)", bytes.len()),
        }
    }
}

/// A link to a resource.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Link {
    pub(super) uri: String,
    pub(super) name: String,
    pub(super) title: Option<String>,
    pub(super) description: Option<String>,
    pub(super) mime_type: Option<String>,
    pub(super) size: Option<u64>,
}

impl Part {
    fn new(body: Body) -> Self {
        Self { body, extra: None }
    }

    fn media(kind: PartKind, mime_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        let mime_type = mime_type.into();
        Self::new(Body::Media(Media { kind, mime_type, data: data.into(), name: None }))
    }

    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(Body::Text(text.into()))
    }

    /// An image of `mime_type` (`image/png`, `image/jpeg`, `image/gif`, `image/webp`, ...).
    pub fn image(mime_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Self::media(PartKind::Image, mime_type, data)
    }

    /// A sound of `mime_type` (`audio/wav`, `audio/mpeg`, ...).
    pub fn audio(mime_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Self::media(PartKind::Audio, mime_type, data)
    }

    /// A document named `name`, of `mime_type` (`application/pdf`, `text/plain`, ...).
    pub fn file(
        name: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Bytes>,
    ) -> Self {
        let mut part = Self::media(PartKind::File, mime_type, data);
        if let Body::Media(media) = &mut part.body {
            media.name = Some(name.into());
        }
        part
    }

    /// The part `data` of `mime_type` makes: an image for `image/*`, audio for `audio/*`, and
    /// otherwise a file named `name`.
    pub fn from_mime(name: &str, mime_type: &str, data: impl Into<Bytes>) -> Self {
        if mime_type.starts_with("image/") {
            Self::image(mime_type, data)
        } else if mime_type.starts_with("audio/") {
            Self::audio(mime_type, data)
        } else {
            Self::file(name, mime_type, data)
        }
    }

    /// An embedded resource at `uri` whose content is `text`.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        let content = ResourceContent::Text(text.into());
        Self::new(Body::Resource(Resource { uri: uri.into(), mime_type, content, meta: None }))
    }

    /// An embedded resource at `uri` whose content is `data`.
    pub fn resource_blob(
        uri: impl Into<String>,
        mime_type: Option<String>,
        data: impl Into<Bytes>,
    ) -> Self {
        let content = ResourceContent::Blob(data.into());
        Self::new(Body::Resource(Resource { uri: uri.into(), mime_type, content, meta: None }))
    }

    /// A link to the resource at `uri`, named `name`; [`with_link_details`](Self::with_link_details)
    /// adds its title, description, MIME type and size.
    pub fn link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self::new(Body::Link(Link {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }))
    }

    /// The same link with its title, description, MIME type and size in bytes; a part that
    /// is not a link is returned as it is.
    #[must_use]
    pub fn with_link_details(
        mut self,
        title: Option<String>,
        description: Option<String>,
        mime_type: Option<String>,
        size: Option<u64>,
    ) -> Self {
        if let Body::Link(link) = &mut self.body {
            link.title = title;
            link.description = description;
            link.mime_type = mime_type;
            link.size = size;
        }
        self
    }

    /// What kind of part it is.
    pub fn kind(&self) -> PartKind {
        match &self.body {
            Body::Text(_) => PartKind::Text,
            Body::Media(media) => media.kind,
            Body::Resource(_) => PartKind::Resource,
            Body::Link(_) => PartKind::Link,
        }
    }

    /// Whether it carries bytes that are not text: an image, audio, a file, or a resource
    /// with a blob.
    pub fn is_media(&self) -> bool {
        self.data().is_some()
    }

    /// Its MIME type, as declared: always there for media, optional for resources and links,
    /// `None` for text.
    pub fn mime_type(&self) -> Option<&str> {
        match &self.body {
            Body::Text(_) => None,
            Body::Media(media) => Some(&media.mime_type),
            Body::Resource(resource) => resource.mime_type.as_deref(),
            Body::Link(link) => link.mime_type.as_deref(),
        }
    }

    /// Its bytes: an image's, a sound's, a file's or a resource's blob.
    pub fn data(&self) -> Option<&Bytes> {
        match &self.body {
            Body::Media(media) => Some(&media.data),
            Body::Resource(Resource { content: ResourceContent::Blob(data), .. }) => Some(data),
            _ => None,
        }
    }

    /// Its text: a text part's, or an embedded resource's text content.
    pub fn as_text(&self) -> Option<&str> {
        match &self.body {
            Body::Text(text) => Some(text),
            Body::Resource(Resource { content: ResourceContent::Text(text), .. }) => Some(text),
            _ => None,
        }
    }

    /// A file's name, or a link's.
    pub fn name(&self) -> Option<&str> {
        match &self.body {
            Body::Media(media) => media.name.as_deref(),
            Body::Link(link) => Some(&link.name),
            _ => None,
        }
    }

    /// A resource's or a link's URI.
    pub fn uri(&self) -> Option<&str> {
        match &self.body {
            Body::Resource(resource) => Some(&resource.uri),
            Body::Link(link) => Some(&link.uri),
            _ => None,
        }
    }

    /// A link's title and description.
    pub fn link_title(&self) -> (Option<&str>, Option<&str>) {
        match &self.body {
            Body::Link(link) => (link.title.as_deref(), link.description.as_deref()),
            _ => (None, None),
        }
    }

    /// How many bytes it holds: its bytes, or its text's length in UTF-8. A link holds none
    /// (see [`linked_size`](Self::linked_size)).
    pub fn size(&self) -> usize {
        match (&self.body, self.data()) {
            (_, Some(data)) => data.len(),
            (Body::Text(text), _) => text.len(),
            (Body::Resource(Resource { content: ResourceContent::Text(text), .. }), _) => {
                text.len()
            }
            _ => 0,
        }
    }

    /// The size a link says its resource has.
    pub fn linked_size(&self) -> Option<u64> {
        match &self.body {
            Body::Link(link) => link.size,
            _ => None,
        }
    }

    /// The fields of its MCP block that toolwire does not read, such as `annotations` and
    /// `_meta`, as they came.
    pub fn mcp_extra(&self) -> Option<&Map<String, Value>> {
        self.extra.as_deref()
    }

    /// The same part with more MCP fields, such as `annotations` (`audience`, `priority`,
    /// `lastModified`) and `_meta`; a key that names one of the part's own fields (`type`,
    /// `data`, `uri`, ...) is ignored.
    #[must_use]
    pub fn with_mcp_extra(mut self, extra: Map<String, Value>) -> Self {
        const OWN: [&str; 10] = [
            "type",
            "text",
            "data",
            "mimeType",
            "name",
            "uri",
            "resource",
            "title",
            "description",
            "size",
        ];
        let kept: Map<String, Value> =
            extra.into_iter().filter(|(key, _)| !OWN.contains(&key.as_str())).collect();
        self.extra = (!kept.is_empty()).then(|| Box::new(kept));
        self
    }

    /// One line that names it without its content, as a model, a terminal or a log reads
    /// it: `image image/png, 1.2 MiB`, `file report.pdf (application/pdf), 40 KiB`,
    /// `resource_link file:///a.txt`.
    pub fn describe(&self) -> String {
        let size = super::size::Size(self.size());
        match &self.body {
            Body::Text(_) => format!("text, {size}"),
            Body::Media(Media { kind, mime_type, name: Some(name), .. }) => {
                format!("{kind} {name} ({mime_type}), {size}")
            }
            Body::Media(Media { kind, mime_type, .. }) => format!("{kind} {mime_type}, {size}"),
            Body::Resource(resource) => match &resource.mime_type {
                Some(mime) => format!("resource {} ({mime}), {size}", resource.uri),
                None => format!("resource {}, {size}", resource.uri),
            },
            Body::Link(link) => format!("resource_link {}", link.uri),
        }
    }
}
