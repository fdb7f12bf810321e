use toolwire::tool;

type Result<T> = std::result::Result<T, String>;

#[tool]
fn parse(text: String) -> Result<i64> {
    text.parse().map_err(|_| "not a number".to_owned())
}

fn main() {}
