//! Feeds arbitrary bytes, one line per event, to every provider's whole-turn decoder: none
//! may panic, whether the stream ends, breaks off or fails.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire::Provider;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for api in Provider::ALL.into_iter().filter_map(Provider::model_api) {
        let mut decoder = api.decoder();
        for line in text.lines() {
            if decoder.push(line).is_err() {
                break;
            }
            decoder.take_text();
            decoder.take_ready();
        }
        let _ = decoder.end();
        decoder.take_ready();
        decoder.finish();
    }
});
