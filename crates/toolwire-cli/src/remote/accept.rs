//! `toolwire mcp accept SERVER | NAME`: pins the current definitions of a server's tools, or
//! of one tool (by the name it is imported under), in `toolwire.lock`.

use super::lock::{LockFile, Locked};
use crate::exit::{CliError, Exit};
use crate::manifest::Manifest;

/// Pins what `target` names, printing each pin that changed.
///
/// # Errors
///
/// A usage error when `target` names no server or tool of the manifest, or the server
/// cannot be reached, or the lock file cannot be written.
pub(crate) async fn accept(
    manifest: &Manifest,
    lock: &mut LockFile,
    target: &str,
) -> Result<Exit, CliError> {
    let whole = manifest.servers.iter().find(|server| server.name == target);
    let server = whole
        .or_else(|| manifest.servers.iter().find(|server| target.starts_with(&server.prefix)))
        .ok_or_else(|| {
            let names: Vec<&str> = manifest.servers.iter().map(|s| s.name.as_str()).collect();
            CliError::usage(format!(
                "{target:?} is no mcp server of the manifest, nor one of their tools (servers: \
                 {})",
                names.join(", ")
            ))
        })?;
    let connected = super::connect::connect(server).await.map_err(CliError::usage)?;
    let import = connected.remote.import_with(&super::options(server));
    connected.remote.close().await;
    let chosen: Vec<_> = import
        .pins
        .iter()
        .filter(|pin| server.keeps(&pin.tool))
        .filter(|pin| whole.is_some() || pin.name == target)
        .collect();
    if chosen.is_empty() {
        return Err(CliError::usage(format!(
            "mcp server {:?} lists no tool imported as {target:?}",
            server.name
        )));
    }
    for pin in chosen {
        let before = lock.get(&server.name, &pin.tool).map(|entry| entry.changes(pin));
        if lock.put(Locked::of(&server.name, pin)) {
            match before {
                Some(parts) => println!("accepted {} (changed: {})", pin.name, parts.join(", ")),
                None => println!("accepted {} (new)", pin.name),
            }
        }
    }
    if whole.is_some() {
        let listed: Vec<&str> = import.pins.iter().map(|pin| pin.tool.as_str()).collect();
        let gone: Vec<String> = lock
            .of_server(&server.name)
            .filter(|entry| !listed.contains(&entry.tool.as_str()))
            .map(|entry| entry.tool.clone())
            .collect();
        for tool in gone {
            lock.remove(&server.name, &tool);
            println!("dropped {}{tool} (no longer listed)", server.prefix);
        }
    }
    lock.save().map_err(CliError::usage)?;
    Ok(Exit::Success)
}
