//! `cdmremote:http://host/path`: a dataset on a cdmremote server (THREDDS,
//! `nctk serve`), read by HTTP GETs of the endpoint with netCDF-Java's
//! queries. The reader is `nctk_ncstream::remote::CdmRemoteReader`; this
//! module is its HTTP transport (reqwest on the I/O runtime of
//! `nctk-store-object`, with its timeouts and its largest answer).

use nctk_ncstream::remote::{error_text, CdmRemoteReader, Transport, TransportError};
use nctk_store_object::runtime;

use super::{open_error, Opened};
use crate::{Container, Dataset, Error, ErrorKind, OpenOptions};
use nctk_model::SourceError;

/// The most bytes of an error answer's body kept for the message.
const ERROR_BODY_LIMIT: usize = 4096;

/// GETs of one cdmremote endpoint.
struct HttpTransport {
    client: reqwest::Client,
    /// The endpoint's URL, without a query.
    endpoint: String,
    /// The largest answer accepted, in bytes.
    max_answer: u64,
}

impl Transport for HttpTransport {
    fn get(&self, query: &str) -> Result<Vec<u8>, TransportError> {
        let request = self.client.get(format!("{}?{query}", self.endpoint));
        runtime::block_on(fetch(request, self.max_answer))
    }

    fn name(&self) -> &str {
        &self.endpoint
    }
}

/// A transport failure with the client's error as its source; the reason
/// ends with the innermost cause (`Connection refused`, a timeout), which
/// the client's own message leaves out.
fn failed(reason: &str, e: reqwest::Error) -> TransportError {
    let mut cause: &dyn std::error::Error = &e;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    TransportError::Failed {
        reason: format!("{reason}: {cause}"),
        source: Some(Box::new(e)),
    }
}

/// Sends `request` and reads the answer's body, refusing one larger than
/// `max` bytes before reading past it; an error status gives the server's
/// ncstream error text (or the body's text).
async fn fetch(request: reqwest::RequestBuilder, max: u64) -> Result<Vec<u8>, TransportError> {
    let mut response = request
        .send()
        .await
        .map_err(|e| failed("the request failed", e))?;
    let status = response.status();
    let too_large = |n: u64| TransportError::Failed {
        reason: format!("the answer is larger than {max} bytes (at least {n})"),
        source: None,
    };
    if let Some(n) = response.content_length().filter(|&n| n > max) {
        return Err(too_large(n));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| failed("the answer broke off", e))?
    {
        body.extend_from_slice(&chunk);
        if body.len() as u64 > max {
            return Err(too_large(body.len() as u64));
        }
        if !status.is_success() && body.len() > ERROR_BODY_LIMIT {
            break;
        }
    }
    if status.is_success() {
        return Ok(body);
    }
    let message = error_text(&body).unwrap_or_else(|| {
        let text = String::from_utf8_lossy(&body[..body.len().min(ERROR_BODY_LIMIT)]);
        let text = text.trim();
        if text.is_empty() {
            status
                .canonical_reason()
                .unwrap_or("no message")
                .to_string()
        } else {
            text.to_string()
        }
    });
    Err(TransportError::Status {
        status: status.as_u16(),
        message,
    })
}

/// Opens the dataset at the cdmremote `endpoint` (an `http(s)` URL);
/// `name` is the URL as given, for errors.
pub(super) fn open(endpoint: &str, name: &str, options: &OpenOptions) -> Result<Opened, Error> {
    let options = super::remote_options(options, name)?;
    let client = reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .read_timeout(options.timeout)
        .build()
        .map_err(|e| open_error(name, SourceError::new(ErrorKind::Io, e)))?;
    let transport = HttpTransport {
        client,
        endpoint: endpoint.to_string(),
        max_answer: options.max_object_size,
    };
    let reader = CdmRemoteReader::open(transport).map_err(|e| open_error(name, e))?;
    let dataset = Dataset::from_source(Box::new(reader))
        .in_container(Container::CdmRemote)
        .named(name);
    Ok(Opened::Dataset(dataset))
}
