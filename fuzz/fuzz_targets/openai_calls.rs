//! Feeds arbitrary bytes, as JSON, to the openai reply parser and its streaming accumulator:
//! neither may panic, and a call whose arguments could not be read carries none.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire::provider::openai;

fuzz_target!(|data: &[u8]| {
    let Ok(reply) = serde_json::from_slice::<Value>(data) else { return };
    if let Ok(calls) = openai::parse_calls(&reply) {
        // A call whose arguments could not be read carries none.
        assert!(calls.iter().all(|call| call.malformed.is_none() || call.arguments.is_null()));
    }
    let mut stream = openai::CallAccumulator::default();
    match &reply {
        Value::Array(events) => events.iter().for_each(|event| stream.push(event)),
        event => stream.push(event),
    }
    let _ = stream.finish();
});
