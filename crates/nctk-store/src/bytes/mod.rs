//! Positioned byte sources and sinks (single-blob formats).
