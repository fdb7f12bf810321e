//! Sizes in bytes, as a manifest writes them (`"512 MiB"`) and as a policy's text shows them
//! (`512 MiB`).

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// `"512 MiB"`, `"4GiB"`, `"100 B"`, `"64 KiB"`, or a bare number of bytes; `None` for any
/// other text, or a size past `u64`.
pub(crate) fn parse(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let number: u64 = text[..digits].parse().ok()?;
    let unit: u64 = match text[digits..].trim() {
        "" | "B" => 1,
        "KiB" => KIB,
        "MiB" => MIB,
        "GiB" => GIB,
        _ => return None,
    };
    number.checked_mul(unit)
}

/// `512 MiB`, `8 GiB`, or bytes when not a whole number of either.
pub(crate) fn shown(n: u64) -> String {
    match n {
        n if n >= GIB && n % GIB == 0 => format!("{} GiB", n / GIB),
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_reads_back_as_it_shows() {
        for n in [1, 512 * MIB, 8 * GIB, 3 * KIB] {
            let text = shown(n);
            assert_eq!(parse(&text.replace(" bytes", "")), Some(n), "{text}");
        }
        assert_eq!(parse("4GiB"), Some(4 * GIB));
        assert_eq!(parse("100 B"), Some(100));
        assert_eq!(parse("huge"), None);
        assert_eq!(parse("99999999999 GiB"), None);
    }
}
