//! Routing the servers' progress notifications to the calls that asked for them.
//!
//! rmcp picks a call's progress token when it sends the request, and handles each notification
//! on a task of its own. So a notification may come before the call has registered its token,
//! or after a later one: early ones wait in a small buffer, and stale ones are dropped.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use serde_json::{Map, Value};
use toolwire::ToolContext;

/// How many notifications for unknown tokens are kept, oldest dropped first.
const EARLY_CAPACITY: usize = 64;

/// The live calls of one connection, by progress token.
#[derive(Debug, Default)]
pub(crate) struct ProgressRoutes {
    inner: Mutex<Routes>,
}

#[derive(Debug, Default)]
struct Routes {
    live: HashMap<ProgressToken, Route>,
    early: VecDeque<ProgressNotificationParam>,
}

#[derive(Debug)]
struct Route {
    ctx: ToolContext,
    last: f64,
}

impl ProgressRoutes {
    /// Sends the progress for `token` to `ctx` until the returned guard is dropped.
    pub(crate) fn register(self: &Arc<Self>, token: ProgressToken, ctx: ToolContext) -> RouteGuard {
        let guard = RouteGuard { routes: Arc::clone(self), token: token.clone() };
        let mut early = Vec::new();
        {
            let mut routes = self.lock();
            let (mine, others) = routes.early.drain(..).partition(|p| p.progress_token == token);
            routes.early = others;
            early.extend(mine);
            routes.live.insert(token, Route { ctx, last: f64::NEG_INFINITY });
        }
        early.into_iter().for_each(|param| self.deliver(param));
        guard
    }

    /// Emits `param` as a progress event of its call, or keeps it until the call registers.
    pub(crate) fn deliver(&self, param: ProgressNotificationParam) {
        let ctx = {
            let mut routes = self.lock();
            match routes.live.get_mut(&param.progress_token) {
                Some(route) if param.progress > route.last => {
                    route.last = param.progress;
                    route.ctx.clone()
                }
                Some(_) => return,
                None => {
                    if routes.early.len() == EARLY_CAPACITY {
                        routes.early.pop_front();
                    }
                    routes.early.push_back(param);
                    return;
                }
            }
        };
        ctx.emit(progress_event(&param));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Unregisters a call's token when the call ends, however it ends.
#[derive(Debug)]
pub(crate) struct RouteGuard {
    routes: Arc<ProgressRoutes>,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes.lock().live.remove(&self.token);
    }
}

/// The standard toolwire progress event:
/// `{"type": "progress", "progress": p, "total": t?, "message": m?}`.
fn progress_event(param: &ProgressNotificationParam) -> Value {
    let mut event = Map::with_capacity(4);
    event.insert("type".into(), Value::from("progress"));
    event.insert("progress".into(), number(param.progress));
    if let Some(total) = param.total {
        event.insert("total".into(), number(total));
    }
    if let Some(message) = param.message.as_deref().filter(|m| !m.is_empty()) {
        event.insert("message".into(), Value::from(message));
    }
    Value::Object(event)
}

/// A whole number as an integer, so that `50` reads back as `50`, not `50.0`.
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && (0.0..9.0e15).contains(&value) {
        return Value::from(value as u64);
    }
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}
