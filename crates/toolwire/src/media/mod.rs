//! Results that carry more than JSON and text: images, audio, files, embedded resources and
//! resource links, as ordered [`Part`]s of a [`ToolResult`](crate::ToolResult).
//!
//! A handler adds parts with [`ToolResult::with_parts`](crate::ToolResult::with_parts) (or
//! builds a result of parts alone with [`ToolResult::parts`](crate::ToolResult::parts)). The
//! registry checks them against [`PartLimits`] before anything is sent: a part over a limit,
//! or whose bytes contradict its declared MIME type, fails the call with a message naming it.
//! Each provider renders parts in its own native form (see [`provider`](crate::provider)),
//! and a part a provider cannot take reads as a [`stand_in`] that names it; the text a model
//! reads never holds base64.
//!
//! ```
//! use serde_json::json;
//! use toolwire::ToolResult;
//! use toolwire::media::Part;
//!
//! let png = b"\x89PNG\r\n\x1a\n....".to_vec();
//! let result = ToolResult::ok(json!({"width": 1}), "a chart").with_parts(vec![Part::image("image/png", png)]);
//! assert_eq!(result.parts().len(), 1);
//! // Cloning shares the bytes.
//! let copy = result.clone();
//! assert_eq!(copy.parts()[0].data().unwrap().as_ptr(), result.parts()[0].data().unwrap().as_ptr());
//! ```

mod dimensions;
mod limits;
mod part;
mod size;
mod sniff;
mod standin;
mod wire;

pub use bytes::Bytes;
pub use dimensions::dimensions;
pub use limits::{PartError, PartLimits};
pub use part::{Part, PartKind};
pub use sniff::sniff;
pub use standin::{stand_in, summary, without_bytes};

pub(crate) use size::Size;
pub(crate) use standin::{not_shown, stand_in_media};
pub(crate) use wire::base64;
