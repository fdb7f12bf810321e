use toolwire::tool;

#[tool(name = "other")]
fn ping() -> String {
    "pong".to_owned()
}

fn main() {}
