//! The HTTP side: the accept loop, routing `/cdmremote/PATH?QUERY` to the
//! dataset and the answer, and the answers' status codes, content types
//! and bodies as THREDDS sends them.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE, HOST};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use nctk_model::{Selection, UserTypeKind, VarId};
use nctk_ncstream::message::header_message;
use nctk_ncstream::names::find_variable;
use tokio::net::TcpListener;

use crate::cache::DatasetCache;
use crate::catalog::Catalog;
use crate::data::{produce, DataRequest};
use crate::error::RequestError;
use crate::java::served_schema;
use crate::query::{parse_query, Query, QueryError, RangeSpec, RequestKind, Section, VarSpec};

/// Every response's body.
type Body = BoxBody<Bytes, Infallible>;

/// The path every dataset URL starts with, as on THREDDS.
pub const PREFIX: &str = "/cdmremote/";

const BINARY: &str = "application/octet-stream";
const XML: &str = "application/xml;charset=UTF-8";
const TEXT: &str = "text/plain;charset=UTF-8";

/// How many data frames wait in a response's channel.
const CHANNEL_FRAMES: usize = 2;

/// What every request is answered from.
pub struct State {
    /// The datasets served.
    pub catalog: Catalog,
    /// The datasets opened lately.
    pub cache: DatasetCache,
}

/// Accepts connections on `listener` forever, each served on its own task.
pub async fn accept_loop(listener: TcpListener, state: Arc<State>) -> std::io::Result<()> {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // A connection that failed before it was accepted (reset,
            // out of descriptors for a moment) ends only itself.
            Err(_) => continue,
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(answer(state, req, peer).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed()
}

fn response(status: StatusCode, content_type: &str, body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_str(content_type).expect("ASCII"),
    );
    r
}

/// An ncstream answer: binary, `Content-Description: ncstream`.
fn ncstream(body: Body) -> Response<Body> {
    let mut r = response(StatusCode::OK, BINARY, body);
    r.headers_mut()
        .insert("Content-Description", HeaderValue::from_static("ncstream"));
    r
}

fn error_response(e: &RequestError) -> Response<Body> {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response(status, TEXT, full(e.to_string()))
}

async fn answer(state: Arc<State>, req: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
    if req.method() != Method::GET {
        return response(
            StatusCode::METHOD_NOT_ALLOWED,
            TEXT,
            full("only GET is served"),
        );
    }
    match route(state, &req, peer).await {
        Ok(r) => r,
        Err(e) => error_response(&e),
    }
}

async fn route(
    state: Arc<State>,
    req: &Request<Incoming>,
    peer: SocketAddr,
) -> Result<Response<Body>, RequestError> {
    let path = req.uri().path();
    let not_found = || RequestError::NotFound(path.to_string());
    let relative = path.strip_prefix(PREFIX).ok_or_else(not_found)?;
    let relative = percent_encoding::percent_decode_str(relative)
        .decode_utf8()
        .map_err(|_| not_found())?
        .into_owned();
    let target = state.catalog.resolve(&relative).ok_or_else(not_found)?;
    let query = parse_query(req.uri().query().unwrap_or(""))?;
    let host = req
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(|| peer.to_string());
    let location = format!("http://{host}{path}");
    let dataset = open(state, target, &relative).await?;
    let served = || served_schema(dataset.schema());
    Ok(match query.kind {
        RequestKind::Probe => ncstream(full(Bytes::new())),
        RequestKind::Capabilities => response(
            StatusCode::OK,
            XML,
            full(crate::ncml::capabilities(&location)),
        ),
        RequestKind::Cdl => response(
            StatusCode::OK,
            TEXT,
            full(crate::cdl::cdl(&served(), &relative)),
        ),
        RequestKind::Ncml => response(
            StatusCode::OK,
            XML,
            full(crate::ncml::ncml(&served(), &location)),
        ),
        RequestKind::Header => {
            let message =
                header_message(&served(), &location).map_err(|source| RequestError::Encode {
                    path: relative.clone(),
                    source,
                })?;
            ncstream(full(message))
        }
        RequestKind::Data => data(dataset, &query)?,
    })
}

/// Opens the dataset (or finds it opened) on a blocking thread.
async fn open(
    state: Arc<State>,
    target: String,
    relative: &str,
) -> Result<Arc<nctk::Dataset>, RequestError> {
    let opened = tokio::task::spawn_blocking(move || state.cache.open(&target)).await;
    match opened {
        Ok(Ok(ds)) => Ok(ds),
        Ok(Err(e)) if e.kind() == nctk::ErrorKind::NotFound => {
            Err(RequestError::NotFound(relative.to_string()))
        }
        Ok(Err(e)) => Err(RequestError::Dataset {
            path: relative.to_string(),
            source: e.into(),
        }),
        Err(join) => Err(RequestError::Dataset {
            path: relative.to_string(),
            source: nctk_model::SourceError::new(nctk::ErrorKind::Io, join),
        }),
    }
}

/// Checks every variable and section of a data request before answering,
/// then streams the answer.
fn data(dataset: Arc<nctk::Dataset>, query: &Query) -> Result<Response<Body>, RequestError> {
    let parts = query
        .vars
        .iter()
        .map(|spec| selection(&dataset, spec))
        .collect::<Result<Vec<_>, _>>()?;
    let (sender, body) = crate::body::channel(CHANNEL_FRAMES);
    let request = DataRequest {
        dataset,
        parts,
        deflate: query.deflate,
    };
    tokio::spawn(produce(request, sender));
    Ok(ncstream(body.boxed()))
}

/// The variable and selection a `var` specification names, as
/// `ParsedSectionSpec.parseVariableSection` finds and checks them. A vlen
/// variable's section may end with its `*` dimension's `:`.
fn selection(dataset: &nctk::Dataset, spec: &VarSpec) -> Result<(VarId, Selection), QueryError> {
    let schema = dataset.schema();
    let var = find_variable(schema, &spec.name).ok_or_else(|| {
        QueryError::BadSpec(format!(
            " cant find variable: {} in selector={}",
            spec.name, spec.name
        ))
    })?;
    let shape = schema.shape(var);
    let Some(section) = &spec.section else {
        return Ok((var, Selection::all(&shape)));
    };
    let vlen = matches!(
        schema.user_kind(schema.var(var).dtype),
        Some(UserTypeKind::Vlen { .. })
    );
    let ranges = match section.0.split_last() {
        Some((RangeSpec::All, rest)) if vlen && section.0.len() == shape.len() + 1 => rest,
        _ => &section.0[..],
    };
    Ok((var, Section(ranges.to_vec()).resolve(&shape)?))
}
