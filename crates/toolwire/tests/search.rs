//! `Registry::search`: tools ranked for a request in words, by BM25 over their names (split
//! into words), titles, descriptions and parameters.

use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolResult};

fn tool(name: &str, description: &str, parameters: Value) -> Tool {
    Tool::define(name)
        .description(description)
        .parameters(parameters)
        .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
        .build()
        .expect("a tool")
}

fn plain(name: &str, description: &str) -> Tool {
    tool(name, description, json!({"type": "object", "properties": {}}))
}

fn names(registry: &Registry, query: &str, k: usize) -> Vec<String> {
    registry.search(query, k).iter().map(|hit| hit.tool.name().to_owned()).collect()
}

fn registry() -> Registry {
    Registry::builder()
        .register(plain("github__create_issue", "Open a new issue in a repository"))
        .register(plain("github__list_issues", "List the issues of a repository"))
        .register(plain("files__readFile", "Return the text of a file"))
        .register(plain("files__write_file", "Replace a file's text"))
        .register(tool(
            "deploy",
            "Ship the service",
            json!({"type": "object", "properties": {
                "environment": {"type": "string", "description": "staging or production"},
                "options": {"type": "object", "properties": {
                    "canary": {"type": "boolean", "description": "roll out to one percent first"}
                }}
            }}),
        ))
        .register(plain("send_email", "Send an email message to someone"))
        .seal()
        .expect("a registry")
}

#[test]
fn the_tool_whose_name_matches_ranks_first_whatever_the_spelling_of_the_name() {
    let registry = registry();
    assert_eq!(names(&registry, "create an issue", 1), ["github__create_issue"]);
    assert_eq!(names(&registry, "read file", 1), ["files__readFile"]);
    assert_eq!(names(&registry, "write a file", 1), ["files__write_file"]);
    assert_eq!(names(&registry, "CreateIssue", 1), ["github__create_issue"]);
}

#[test]
fn the_server_part_of_an_imported_name_finds_that_servers_tools() {
    let registry = registry();
    let mut found = names(&registry, "github", 10);
    found.sort();
    assert_eq!(found, ["github__create_issue", "github__list_issues"]);
}

#[test]
fn parameter_names_and_descriptions_nested_or_not_are_searched() {
    let registry = registry();
    assert_eq!(names(&registry, "production", 3), ["deploy"]);
    assert_eq!(names(&registry, "canary rollout percent", 3), ["deploy"]);
}

#[test]
fn only_tools_sharing_a_word_come_back_best_first_at_most_k() {
    let registry = registry();
    assert!(registry.search("kubernetes pods", 5).is_empty());
    assert!(registry.search("", 5).is_empty());
    assert!(registry.search("issue", 0).is_empty());
    let hits = registry.search("issue repository", 5);
    assert_eq!(hits.len(), 2);
    assert!(hits[0].score >= hits[1].score);
    assert_eq!(registry.search("file", 1).len(), 1);
}

#[test]
fn a_rare_word_outweighs_a_common_one() {
    // "issue" is in two names; "email" in one name and its description.
    let registry = registry();
    assert_eq!(names(&registry, "issue email", 1), ["send_email"]);
}

#[test]
fn hostile_queries_cost_a_bounded_search_and_find_nothing_by_accident() {
    let registry = registry();
    let huge = "word ".repeat(100_000) + &"x".repeat(1_000_000);
    assert!(registry.search(&huge, 5).is_empty());
    let junk = "\u{0}\u{202e}<script>alert(1)</script>%00../../etc/passwd";
    // Its words ("script", "alert", "etc", "passwd"...) match no tool.
    assert!(registry.search(junk, 5).is_empty());
    // The 65th distinct word of a query does not count.
    let many: String = (0..64).map(|i| format!("w{i} ")).collect::<String>() + "email";
    assert!(registry.search(&many, 5).is_empty());
}

#[test]
fn an_empty_registry_and_a_clone_search_alike() {
    let empty = Registry::builder().seal().expect("empty");
    assert!(empty.search("anything", 3).is_empty());
    let registry = registry();
    let copy = registry.clone();
    assert_eq!(names(&registry, "email", 1), names(&copy, "email", 1));
}

#[test]
fn a_title_counts_for_more_than_the_description() {
    let titled = Tool::define("t1")
        .title("Weather forecast")
        .description("Look something up")
        .execute_sync(|_, _| ToolResult::ok(Value::Null, ""))
        .build()
        .expect("a tool");
    let described = plain("t2", "Weather forecast for a city, with the weather of the week");
    let registry = Registry::builder().register(described).register(titled).seal().expect("two");
    assert_eq!(names(&registry, "forecast", 2), ["t1", "t2"]);
}

#[test]
fn a_pattern_finds_by_name_first_then_by_text_case_insensitively() {
    let registry = registry();
    let found: Vec<String> = registry
        .search_regex("issue", 10)
        .expect("a pattern")
        .iter()
        .map(|hit| hit.tool.name().to_owned())
        .collect();
    assert_eq!(found, ["github__create_issue", "github__list_issues"]);
    let hits = registry.search_regex("(?:FILE|percent)", 10).expect("a pattern");
    let found: Vec<&str> = hits.iter().map(|hit| hit.tool.name()).collect();
    // Both file tools by name (3), then deploy by a nested parameter's description (1).
    assert_eq!(found, ["files__readFile", "files__write_file", "deploy"]);
    assert_eq!((hits[0].score, hits[2].score), (3.0, 1.0));
    assert_eq!(registry.search_regex("^files__", 1).expect("a pattern").len(), 1);
    assert!(registry.search_regex("nothing-like-this", 10).expect("a pattern").is_empty());
}

#[test]
fn a_hostile_pattern_is_refused_or_runs_in_bounded_time_never_hangs() {
    let registry = registry();
    let broken = registry.search_regex("(unclosed", 5).expect_err("does not compile");
    assert!(broken.to_string().contains("the search pattern is not usable"), "{broken}");
    let long = "a".repeat(toolwire::registry::MAX_PATTERN + 1);
    let refused = registry.search_regex(&long, 5).expect_err("too long");
    assert!(refused.to_string().contains("more than the 1024 allowed"), "{refused}");
    // Too large once compiled: a counted repetition of a counted repetition.
    assert!(registry.search_regex("(?:a{1000}){1000}", 5).is_err());
    // Catastrophic for a backtracking engine; the `regex` crate has none.
    assert!(registry.search_regex("(a+)+$", 5).expect("compiles").is_empty());
    // Nested too deeply.
    let deep = "(".repeat(100) + &")".repeat(100);
    assert!(registry.search_regex(&deep, 5).is_err());
}
