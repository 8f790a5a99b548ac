//! The HTTP plumbing the servers share: the body type, a metered body
//! that can be cut short, the accept loop, and the client.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::BodyExt;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::{Request, Response};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use crate::error::{Error, Result};
use crate::runtime::Background;
use crate::stats::Recorder;

/// Any error a body may end with.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The body of every request and response the servers make.
pub(crate) type Body = BoxBody<Bytes, BoxError>;

/// The client the servers and helpers send requests with (HTTP/1.1,
/// pooled connections).
pub(crate) type HttpClient = Client<HttpConnector, Body>;

/// The size of each read of a response by the [`HttpClient`].
const READ_BUFFER: usize = 1 << 20;

/// A new [`HttpClient`].
pub(crate) fn client() -> HttpClient {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    Client::builder(TokioExecutor::new())
        // Large reads: a proxied body is relayed in few, large frames.
        .http1_read_buf_exact_size(READ_BUFFER)
        .build(connector)
}

/// `bytes` as a [`Body`].
pub(crate) fn full(bytes: impl Into<Bytes>) -> Body {
    http_body_util::Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

/// Any body as a [`Body`].
pub(crate) fn boxed<B>(body: B) -> Body
where
    B: hyper::body::Body<Data = Bytes> + Send + Sync + 'static,
    B::Error: Into<BoxError>,
{
    body.map_err(Into::into).boxed()
}

/// Whether a connection is to be reset (closed with an RST, not a FIN)
/// when it ends: set by a body cut with [`Cut::Reset`].
pub(crate) type ResetFlag = Arc<AtomicBool>;

/// How a [`Metered`] body ends once it has sent its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// The connection is closed (FIN) with the body short.
    Close,
    /// The connection is reset (RST).
    Reset,
}

/// A body whose data bytes are counted into a [`Recorder`], and which can
/// stop after `limit` bytes with an error, so that the server drops the
/// connection with the body short of its `Content-Length`.
pub(crate) struct Metered {
    inner: Body,
    recorder: Arc<Recorder>,
    sent: u64,
    limit: Option<(u64, Cut, ResetFlag)>,
    /// Started at the limit: the error comes when it ends, so that what
    /// was sent before is flushed to the client first.
    flush: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// How long a cut body waits at its limit before ending: time for the
/// server to flush the bytes before it.
const FLUSH_BEFORE_CUT: std::time::Duration = std::time::Duration::from_millis(50);

impl Metered {
    /// `inner`, counted, whole.
    pub(crate) fn new(inner: Body, recorder: Arc<Recorder>) -> Self {
        Self {
            inner,
            recorder,
            sent: 0,
            limit: None,
            flush: None,
        }
    }

    /// Stops after `limit` bytes, ending the connection as `cut` says
    /// (through `reset`, the connection's flag).
    pub(crate) fn cut_after(mut self, limit: u64, cut: Cut, reset: ResetFlag) -> Self {
        self.limit = Some((limit, cut, reset));
        self
    }
}

impl hyper::body::Body for Metered {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        if let Some((limit, cut, reset)) = &this.limit {
            if this.sent >= *limit {
                let flush = this
                    .flush
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(FLUSH_BEFORE_CUT)));
                ready!(flush.as_mut().poll(cx));
                reset.store(*cut == Cut::Reset, Ordering::SeqCst);
                return Poll::Ready(Some(Err(format!(
                    "body cut after {limit} bytes by the test server"
                )
                .into())));
            }
        }
        let frame = match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => frame,
            other => return Poll::Ready(other),
        };
        let mut data = match frame.into_data() {
            Ok(data) => data,
            Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
        };
        if let Some((limit, ..)) = &this.limit {
            let room = usize::try_from(limit - this.sent).unwrap_or(usize::MAX);
            data.truncate(room);
        }
        this.sent += data.len() as u64;
        this.recorder.add_bytes(data.len() as u64);
        Poll::Ready(Some(Ok(Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.limit.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        match self.limit {
            None => self.inner.size_hint(),
            Some(_) => SizeHint::default(),
        }
    }
}

/// A served connection's socket, reset instead of closed when its flag
/// is set by the time it is dropped.
struct Conn {
    stream: TcpStream,
    reset: ResetFlag,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if self.reset.load(Ordering::SeqCst) {
            let _ = self.stream.set_zero_linger();
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    /// Vectored writes, so that hyper sends a large body from where it is
    /// instead of copying it into its buffer.
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Binds `addr` on `runtime` and serves HTTP/1.1 there with `handler`
/// (given each request and its connection's reset flag) until the runtime
/// is dropped; the bound address (the port chosen when `addr`'s is 0).
pub(crate) fn serve<H, F>(runtime: &Background, addr: SocketAddr, handler: H) -> Result<SocketAddr>
where
    H: Fn(Request<Incoming>, ResetFlag) -> F + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let listener = runtime
        .run(async move { TcpListener::bind(addr).await })
        .map_err(Error::io(format!("binding {addr}")))?;
    let bound = listener
        .local_addr()
        .map_err(Error::io(format!("the address bound for {addr}")))?;
    let handler = Arc::new(handler);
    runtime.handle().spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                // Out of descriptors, say: wait, do not spin.
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let reset = ResetFlag::default();
            let conn = Conn {
                stream,
                reset: reset.clone(),
            };
            let handler = handler.clone();
            let service = hyper::service::service_fn(move |req| {
                let response = handler(req, reset.clone());
                async move { Ok::<_, Infallible>(response.await) }
            });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(conn), service)
                    .await;
            });
        }
    });
    Ok(bound)
}
