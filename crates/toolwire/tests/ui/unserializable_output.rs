use toolwire::tool;

struct Opaque;

#[tool]
fn make() -> Opaque {
    Opaque
}

fn main() {}
