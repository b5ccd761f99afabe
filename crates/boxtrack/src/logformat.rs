//! The event format of boxtrack's log lines: `tracing_subscriber`'s own (text or JSON), with
//! the request a line was written in named on it.
//!
//! A request's id is kept in a task-local ([`boxtrack_http::access::in_request`]) rather than a
//! `tracing` span, which cost every request a span's creation, formatting, enter and exit on
//! each poll, and close (BENCHMARKS.md). A line written while a request is handled reads as if
//! that span were still there: `… INFO request{request_id=…}: target: message …` in text,
//! `"span":{"request_id":"…","name":"request"}` in JSON. Only those lines pay for it.

use tracing::Subscriber;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// An event format that names the current request on the lines `inner` writes. A text format
/// that colours must say so itself (`Format::with_ansi`): a request's line is formatted into a
/// string of its own first.
#[derive(Debug, Clone)]
pub struct RequestScoped<E> {
    inner: E,
    json: bool,
}

impl<E> RequestScoped<E> {
    /// `inner`'s lines (JSON objects when `json`), each written inside a request naming it.
    pub fn new(inner: E, json: bool) -> RequestScoped<E> {
        RequestScoped { inner, json }
    }
}

impl<S, N, E> FormatEvent<S, N> for RequestScoped<E>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    E: FormatEvent<S, N>,
    FormattedFields<N>: 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let spliced = boxtrack_http::access::request_id(|id| {
            let mut line = String::new();
            self.inner
                .format_event(ctx, Writer::new(&mut line), event)
                .map(|()| name_request(&mut line, id, self.json))
                .map(|()| line)
        });
        match spliced {
            Some(line) => writer.write_str(&line?),
            None => self.inner.format_event(ctx, writer, event),
        }
    }
}

/// Puts the request `id` on a finished `line`: after the level in text (`TS  LEVEL request{…}:
/// target: …`), as the object's `span` member in JSON.
fn name_request(line: &mut String, id: &str, json: bool) {
    if json {
        let Some(end) = line.rfind('}') else {
            return;
        };
        let mut member = String::from(",\"span\":{\"request_id\":");
        // an id is visible ASCII ([`boxtrack_http::access::request_id`]); escaped all the same
        member.push_str(&serde_json::Value::from(id).to_string());
        member.push_str(",\"name\":\"request\"}");
        line.insert_str(end, &member);
    } else {
        // the timestamp, spaces, the level (its colour codes hold no space), one space
        let after_stamp = line.find(' ').unwrap_or(line.len());
        let level =
            after_stamp + line[after_stamp..].len() - line[after_stamp..].trim_start().len();
        let after_level = line[level..]
            .find(' ')
            .map_or(line.len(), |i| level + i + 1);
        line.insert_str(after_level, &format!("request{{request_id={id}}}: "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A `MakeWriter` into a buffer the test reads.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Buf {
        type Writer = Buf;
        fn make_writer(&'a self) -> Buf {
            self.clone()
        }
    }

    impl Buf {
        fn lines(&self) -> Vec<String> {
            let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
            text.lines().map(str::to_owned).collect()
        }
    }

    /// What `log` writes at `info` through boxtrack's text format, and through the formatter
    /// with the request as a `tracing` span, as boxtrack wrote it before.
    async fn both_ways(json: bool, ansi: bool) -> (Vec<String>, Vec<String>) {
        let ours = Buf::default();
        let theirs = Buf::default();
        let id = axum::http::HeaderValue::from_static("req-7");
        let builder = || {
            tracing_subscriber::fmt()
                .with_max_level(tracing::Level::INFO)
                .with_ansi(ansi)
                .without_time()
        };
        {
            let _g = if json {
                let s = builder()
                    .json()
                    .with_span_list(false)
                    .with_writer(ours.clone())
                    .map_event_format(|f| RequestScoped::new(f, true))
                    .finish();
                tracing::subscriber::set_default(s)
            } else {
                let s = builder()
                    .with_writer(ours.clone())
                    .map_event_format(|f| RequestScoped::new(f.with_ansi(ansi), false))
                    .finish();
                tracing::subscriber::set_default(s)
            };
            tracing::info!(target: "boxtrack::x", n = 1, "outside");
            boxtrack_http::access::in_request(id.clone(), async {
                tracing::warn!(target: "boxtrack::x", n = 2, "inside");
            })
            .await;
        }
        {
            let _g = if json {
                let s = builder()
                    .json()
                    .with_span_list(false)
                    .with_writer(theirs.clone())
                    .finish();
                tracing::subscriber::set_default(s)
            } else {
                let s = builder().with_writer(theirs.clone()).finish();
                tracing::subscriber::set_default(s)
            };
            tracing::info!(target: "boxtrack::x", n = 1, "outside");
            let span = tracing::info_span!("request", request_id = %id.to_str().unwrap());
            tracing::Instrument::instrument(
                async {
                    tracing::warn!(target: "boxtrack::x", n = 2, "inside");
                },
                span,
            )
            .await;
        }
        (ours.lines(), theirs.lines())
    }

    #[tokio::test]
    async fn a_line_written_in_a_request_reads_as_under_the_request_span() {
        let (ours, theirs) = both_ways(false, false).await;
        assert_eq!(ours, theirs);
        assert_eq!(
            ours,
            [
                " INFO boxtrack::x: outside n=1",
                " WARN request{request_id=req-7}: boxtrack::x: inside n=2"
            ]
        );
        let (ours, theirs) = both_ways(true, false).await;
        assert_eq!(ours.len(), 2);
        for (o, t) in ours.iter().zip(&theirs) {
            let o: serde_json::Value = serde_json::from_str(o).unwrap();
            let t: serde_json::Value = serde_json::from_str(t).unwrap();
            assert_eq!(o, t);
        }
        let inside: serde_json::Value = serde_json::from_str(&ours[1]).unwrap();
        assert_eq!(inside["span"]["request_id"], "req-7");
        assert_eq!(inside["span"]["name"], "request");
        // coloured on a terminal: the level keeps its colour, the request is named after it
        let (ours, _) = both_ways(false, true).await;
        assert!(ours[1].contains("\u{1b}["), "{:?}", ours[1]);
        assert!(
            ours[1].contains(" request{request_id=req-7}: "),
            "{:?}",
            ours[1]
        );
    }

    #[test]
    fn a_stamped_line_gets_the_request_after_its_level() {
        let mut line =
            String::from("2026-12-04T03:00:22.049128Z ERROR boxtrack::api: storage failure\n");
        name_request(&mut line, "abc", false);
        assert_eq!(
            line,
            "2026-12-04T03:00:22.049128Z ERROR request{request_id=abc}: boxtrack::api: storage failure\n"
        );
        let mut line = String::from("2026-12-04T03:00:22.049128Z  INFO boxtrack::api: x\n");
        name_request(&mut line, "abc", false);
        assert_eq!(
            line,
            "2026-12-04T03:00:22.049128Z  INFO request{request_id=abc}: boxtrack::api: x\n"
        );
        let mut line = String::from("{\"level\":\"WARN\",\"fields\":{\"message\":\"x\"}}\n");
        name_request(&mut line, "a\"b", true);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["span"]["request_id"], "a\"b");
        assert_eq!(v["fields"]["message"], "x");
    }
}
