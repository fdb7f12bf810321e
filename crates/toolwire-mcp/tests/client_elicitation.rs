//! Elicitation: a server asking the user for input in the middle of a call.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwire_mcp::client::{ClientOptions, Elicitation, ElicitationReply};

use crate::client_support::duplex;

#[tokio::test]
async fn an_elicitation_handler_answers_with_the_schema_defaults() {
    let asked = Arc::new(Mutex::new(Vec::<Elicitation>::new()));
    let record = Arc::clone(&asked);
    // This server elicits with a request of its own, which only a 2025-11-25 session allows.
    let options =
        ClientOptions::new().protocol_version("2025-11-25").on_elicitation(move |request| {
            record.lock().unwrap().push(request.clone());
            async move { ElicitationReply::accept_defaults(&request.schema) }
        });
    let (_server, client) = duplex("ops", options).await;
    let import = client.import();
    let ask = import.tools.iter().find(|t| t.name() == "ops__ask").expect("ask");
    let result = ask.execute(json!({})).await;
    assert_eq!(
        result.json(),
        &json!({"action": "accept", "content": {"env": "staging", "replicas": 2}}),
        "{result:?}"
    );
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].server, "ops");
    assert_eq!(asked[0].message, "Which environment?");
}

#[tokio::test]
async fn without_a_handler_elicitations_are_declined() {
    let legacy = ClientOptions::new().protocol_version("2025-11-25");
    let (_server, client) = duplex("ops", legacy).await;
    let import = client.import();
    let ask = import.tools.iter().find(|t| t.name() == "ops__ask").expect("ask");
    let result = ask.execute(json!({})).await;
    assert_eq!(result.json(), &json!({"action": "decline"}), "{result:?}");
}
