//! Inbound e-mail (`POST /v2/email_submissions`): an RFC 5322 message as a mail server or an
//! inbound-mail service hands it over, read into the submission's fields and its attachments,
//! which become documents. Pure: bytes in, values out.

use mail_parser::{MessageParser, MimeHeaders};

use crate::documents::MAX_BYTES;

/// The most of the text body kept with a submission (characters).
pub const MAX_BODY_CHARS: usize = 20_000;

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// File name (`attachment-N` when the message gives none).
    pub filename: String,
    /// MIME type.
    pub content_type: String,
    /// The decoded bytes.
    pub bytes: Vec<u8>,
}

/// What a message says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Email {
    /// Subject.
    pub subject: String,
    /// Text body (HTML turned into text), cut at [`MAX_BODY_CHARS`].
    pub body: Option<String>,
    /// Sender addresses.
    pub from: Vec<String>,
    /// Recipients.
    pub to: Vec<String>,
    /// Copies.
    pub cc: Vec<String>,
    /// The Date header, Unix microseconds.
    pub sent_us: Option<i64>,
    /// Message-ID, without angle brackets.
    pub message_id: Option<String>,
    /// In-Reply-To.
    pub in_reply_to: Option<String>,
    /// References.
    pub references: Vec<String>,
    /// Top-level MIME type.
    pub content_type: Option<String>,
    /// Attachments of 1 byte to 25 MiB (others are in `skipped`).
    pub attachments: Vec<Attachment>,
    /// Attachments left out, with why.
    pub skipped: Vec<String>,
}

/// Why a message cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmailError {
    /// Not a message at all.
    #[error("the body is not an RFC 5322 e-mail message (no header could be read)")]
    NotAMessage,
    /// No sender.
    #[error("the message has no From address")]
    NoSender,
}

fn mime(ct: Option<&mail_parser::ContentType<'_>>) -> Option<String> {
    ct.map(|c| match c.subtype() {
        Some(sub) => format!("{}/{}", c.ctype(), sub).to_ascii_lowercase(),
        None => c.ctype().to_ascii_lowercase(),
    })
}

fn addresses(a: Option<&mail_parser::Address<'_>>) -> Vec<String> {
    a.map(|a| {
        a.iter()
            .filter_map(|x| x.address())
            .map(|x| x.trim().to_ascii_lowercase())
            .filter(|x| !x.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

fn texts(v: &mail_parser::HeaderValue<'_>) -> Vec<String> {
    match (v.as_text_list(), v.as_text()) {
        (Some(list), _) => list.iter().map(|s| s.to_string()).collect(),
        (None, Some(one)) => vec![one.to_string()],
        _ => Vec::new(),
    }
}

/// Reads a message.
pub fn parse(raw: &[u8]) -> Result<Email, EmailError> {
    let m = MessageParser::default()
        .parse(raw)
        .filter(|m| m.headers().iter().next().is_some())
        .ok_or(EmailError::NotAMessage)?;
    let from = addresses(m.from());
    if from.is_empty() {
        return Err(EmailError::NoSender);
    }
    let mut attachments = Vec::new();
    let mut skipped = Vec::new();
    for (i, part) in m.attachments().enumerate() {
        let filename = part
            .attachment_name()
            .map(|n| n.replace(['/', '\\'], "_").trim().to_string())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("attachment-{}", i + 1));
        let bytes = part.contents();
        if bytes.is_empty() || bytes.len() as i64 > MAX_BYTES {
            skipped.push(format!(
                "{filename}: {} bytes (1 byte to 25 MiB are kept)",
                bytes.len()
            ));
            continue;
        }
        attachments.push(Attachment {
            filename,
            content_type: mime(part.content_type())
                .unwrap_or_else(|| "application/octet-stream".into()),
            bytes: bytes.to_vec(),
        });
    }
    Ok(Email {
        subject: m.subject().unwrap_or_default().trim().to_string(),
        body: m
            .body_text(0)
            .map(|b| b.trim().chars().take(MAX_BODY_CHARS).collect::<String>())
            .filter(|b| !b.is_empty()),
        from,
        to: addresses(m.to()),
        cc: addresses(m.cc()),
        sent_us: m.date().map(|d| d.to_timestamp() * 1_000_000),
        message_id: m.message_id().map(str::to_string),
        in_reply_to: texts(m.in_reply_to()).into_iter().next(),
        references: texts(m.references()),
        content_type: mime(m.content_type()),
        attachments,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const MESSAGE: &[u8] = b"From: Ops Desk <ops@forwarder.example>\r\n\
To: docs@boxtrack.example\r\n\
Cc: Broker <broker@example.com>, team@example.com\r\n\
Subject: Arrival notice MAEU123456789\r\n\
Date: Tue, 24 Nov 2026 09:30:00 +0100\r\n\
Message-ID: <abc123@forwarder.example>\r\n\
In-Reply-To: <prev@forwarder.example>\r\n\
References: <first@forwarder.example> <prev@forwarder.example>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"b1\"\r\n\
\r\n\
--b1\r\n\
Content-Type: text/plain; charset=utf-8\r\n\
\r\n\
Please find the arrival notice attached.\r\n\
--b1\r\n\
Content-Type: application/pdf; name=\"AN MAEU123456789.pdf\"\r\n\
Content-Disposition: attachment; filename=\"AN MAEU123456789.pdf\"\r\n\
Content-Transfer-Encoding: base64\r\n\
\r\n\
JVBERi0xLjQKJSBhcnJpdmFsIG5vdGljZQolJUVPRgo=\r\n\
--b1\r\n\
Content-Type: application/octet-stream\r\n\
Content-Disposition: attachment; filename=\"empty.bin\"\r\n\
\r\n\
\r\n\
--b1--\r\n";

    #[test]
    fn a_forwarders_message_reads_into_fields_and_attachments() {
        let e = parse(MESSAGE).unwrap();
        assert_eq!(e.subject, "Arrival notice MAEU123456789");
        assert_eq!(e.from, ["ops@forwarder.example"]);
        assert_eq!(e.to, ["docs@boxtrack.example"]);
        assert_eq!(e.cc, ["broker@example.com", "team@example.com"]);
        assert_eq!(e.message_id.as_deref(), Some("abc123@forwarder.example"));
        assert_eq!(e.in_reply_to.as_deref(), Some("prev@forwarder.example"));
        assert_eq!(e.references.len(), 2);
        assert_eq!(e.content_type.as_deref(), Some("multipart/mixed"));
        // 09:30 +01:00 is 08:30 UTC
        assert_eq!(
            e.sent_us.map(crate::time::format_micros).as_deref(),
            Some("2026-11-24T08:30:00Z")
        );
        assert_eq!(
            e.body.as_deref(),
            Some("Please find the arrival notice attached.")
        );
        assert_eq!(e.attachments.len(), 1);
        let a = &e.attachments[0];
        assert_eq!(a.filename, "AN MAEU123456789.pdf");
        assert_eq!(a.content_type, "application/pdf");
        assert_eq!(a.bytes, b"%PDF-1.4\n% arrival notice\n%%EOF\n");
        assert_eq!(e.skipped.len(), 1);
    }

    #[test]
    fn what_is_not_a_message_is_refused() {
        assert_eq!(parse(b"").unwrap_err(), EmailError::NotAMessage);
        assert_eq!(
            parse(b"Subject: hi\r\n\r\nno sender\r\n").unwrap_err(),
            EmailError::NoSender
        );
    }
}
