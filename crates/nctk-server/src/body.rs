//! The body of a streamed answer: the frames a producer sends through a
//! bounded channel, ending only when the producer is done and every frame
//! it sent has gone out.
//!
//! (`http_body_util::channel::Channel` ends the body as soon as its sender
//! is dropped whenever its frame receiver answers "not ready" at that
//! moment, which a frame still being written by the producer's thread (or
//! tokio's cooperative scheduling) makes it do with a frame on its way:
//! under load, siphon received answers whose last frames were missing.)

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

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[test]
    fn every_frame_sent_before_the_sender_is_dropped_arrives() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            for round in 0..200u32 {
                let (tx, body) = channel(2);
                let producer = tokio::spawn(async move {
                    for i in 0..300u32 {
                        tx.send(Bytes::from(i.to_be_bytes().to_vec()))
                            .await
                            .unwrap();
                    }
                    // The sender is dropped here, frames possibly unsent.
                });
                let bytes = body.collect().await.unwrap().to_bytes();
                producer.await.unwrap();
                let want: Vec<u8> = (0..300u32).flat_map(|i| i.to_be_bytes()).collect();
                assert_eq!(bytes.as_ref(), want.as_slice(), "round {round}");
            }
        });
    }
}
