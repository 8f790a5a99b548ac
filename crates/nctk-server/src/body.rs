//! The body of a streamed answer: the frames a producer sends through a
//! bounded channel, ending only when the producer is done and every frame
//! it sent has gone out.
//!
//! (`http_body_util::channel::Channel` ends the body as soon as its sender
//! is dropped whenever its frame receiver answers "not ready", which
//! tokio's cooperative scheduling makes it do even with frames waiting:
//! the last frames of an answer could be lost.)

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::Frame;
use tokio::sync::mpsc;

/// The producer's end.
pub type Sender = mpsc::Sender<Bytes>;

/// The body's end.
pub struct ChannelBody {
    frames: mpsc::Receiver<Bytes>,
}

/// A sender and the body it feeds, holding at most `frames` unsent frames.
pub fn channel(frames: usize) -> (Sender, ChannelBody) {
    let (tx, rx) = mpsc::channel(frames.max(1));
    (tx, ChannelBody { frames: rx })
}

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        // `None` only once every sender is gone and no frame is left.
        self.frames
            .poll_recv(cx)
            .map(|frame| frame.map(|bytes| Ok(Frame::data(bytes))))
    }
}
