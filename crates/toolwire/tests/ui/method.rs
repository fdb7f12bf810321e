use toolwire::tool;

struct Service;

impl Service {
    #[tool]
    fn lookup(&self, city: String) -> String {
        city
    }
}

fn main() {}
