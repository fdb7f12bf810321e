//! The `_meta` of a request on MCP 2026-07-28, where a session declares nothing once: the
//! client's capabilities, which every request of the call and of its task carries.

use rmcp::model::{
    ElicitationCapability, FormElicitationCapability, RequestMetaObject, TASKS_EXTENSION_ID,
    UrlElicitationCapability,
};

use super::connection::Connection;
use crate::Revision;

/// On MCP 2026-07-28 the client's capabilities travel with each request: they say that this
/// client takes elicitations in form and URL mode, which the host answers when no handler
/// does, and follows tasks (SEP-2663). A 2025-11-25 session declared its capabilities once,
/// in `initialize`.
pub(crate) fn input_meta(connection: &Connection) -> Option<RequestMetaObject> {
    let info = connection.peer.peer_info()?;
    if !Revision::of(info.protocol_version.as_str()).is_some_and(Revision::is_stateless) {
        return None;
    }
    let mut capabilities = connection.side.info.capabilities.clone();
    let elicitation = ElicitationCapability::new()
        .with_form(FormElicitationCapability::new())
        .with_url(UrlElicitationCapability::new());
    capabilities.elicitation = Some(elicitation);
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
    let mut meta = RequestMetaObject::default();
    meta.set_client_capabilities(capabilities);
    Some(meta)
}
