//! Feeds arbitrary bytes, as JSON, to the gemini reply parser and its streaming accumulator:
//! neither may panic, and a call whose arguments could not be read carries none.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire::provider::gemini;

fuzz_target!(|data: &[u8]| {
    let Ok(reply) = serde_json::from_slice::<Value>(data) else { return };
    if let Ok(calls) = gemini::parse_calls(&reply) {
        // A call whose arguments could not be read carries none.
        assert!(calls.iter().all(|call| call.malformed.is_none() || call.arguments.is_null()));
    }
    let mut stream = gemini::CallAccumulator::default();
    match &reply {
        Value::Array(chunks) => chunks.iter().for_each(|chunk| stream.push(chunk)),
        chunk => stream.push(chunk),
    }
    let calls = stream.finish();
    assert!(calls.iter().all(|call| call.malformed.is_none() || call.arguments.is_null()));
});
