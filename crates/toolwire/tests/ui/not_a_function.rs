use toolwire::tool;

#[tool]
struct Weather {
    city: String,
}

fn main() {}
