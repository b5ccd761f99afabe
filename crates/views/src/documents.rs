//! Resources of documents: the files an account keeps with its shipments and containers, and
//! the e-mails they came in.

use boxtrack_store::documents::{DocumentRow, SubmissionRow};
use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

use crate::jsonapi::{At, Kind, Resource, ToMany, ToOne};

/// The `document` type.
pub struct Document;

impl Kind for Document {
    const TYPE: &'static str = "document";
    const COLLECTION: &'static str = "documents";
    const NAME: &'static str = "Document";
    type Attributes = DocumentAttributes;
    type Relationships = DocumentRelationships;
    const DOWNLOAD: Option<&'static str> = Some("download_url");
}

/// Attributes of a document.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocumentAttributes {
    /// The document's id (as in the resource object).
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// From the name and file name (words such as BL, invoice, arrival notice); `other` when
    /// none matches.
    pub document_type: String,
    /// The type a person set, overriding the classification.
    pub document_type_manual: Option<String>,
    /// How the type was found.
    pub classification_notes: Option<String>,
    /// Where it came from.
    #[schemars(extend("enum" = ["upload", "api", "email", "split_document"]))]
    pub source: String,
    /// The file's name.
    pub file_name: String,
    /// The file's media type.
    pub file_content_type: Option<String>,
    /// The file's size.
    pub file_size_bytes: Option<i64>,
    /// When it was added.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// Relationships of a document.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocumentRelationships {
    /// The account (`account`).
    pub account: ToOne,
    /// The person who added it (not kept: always null).
    pub user: ToOne,
    /// The e-mail it came in (`email_submission`).
    pub email_submission: ToOne,
    /// A newer representation of the file (not kept: always null).
    pub last_document_representation: ToOne,
    /// Linked shipments (`shipment`).
    pub shipments: ToMany,
    /// Linked containers (`container`).
    pub cargos: ToMany,
}

/// The `document` resource.
pub fn document(d: &DocumentRow) -> Resource<Document> {
    Resource {
        id: d.id,
        attributes: DocumentAttributes {
            id: d.id,
            name: d.name.clone(),
            document_type: d.document_type.clone(),
            document_type_manual: d.document_type_manual.clone(),
            classification_notes: Some(
                "Classified from the document's name and file name (an e-mail's attachment: its file name)."
                    .to_string(),
            ),
            source: d.source.clone(),
            file_name: d.file_name.clone(),
            file_content_type: Some(d.file_content_type.clone()),
            file_size_bytes: Some(d.file_size_bytes),
            created_at: At(d.created_us),
            updated_at: At(d.updated_us),
        },
        relationships: DocumentRelationships {
            account: ToOne::new("account", Some(d.account_id)),
            user: ToOne::none(),
            email_submission: ToOne::new("email_submission", d.email_submission_id),
            last_document_representation: ToOne::none(),
            shipments: ToMany::new("shipment", &d.shipment_ids),
            cargos: ToMany::new("container", &d.container_ids),
        },
    }
}

/// The `email_submission` type.
pub struct EmailSubmission;

impl Kind for EmailSubmission {
    const TYPE: &'static str = "email_submission";
    const COLLECTION: &'static str = "email_submissions";
    const NAME: &'static str = "EmailSubmission";
    type Attributes = EmailSubmissionAttributes;
    type Relationships = EmailSubmissionRelationships;
}

/// Attributes of an e-mail submission.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EmailSubmissionAttributes {
    /// The subject.
    pub subject: String,
    /// The text body.
    pub body: Option<String>,
    /// Senders.
    pub from: Vec<String>,
    /// Recipients.
    pub to: Vec<String>,
    /// Copied recipients.
    pub cc: Vec<String>,
    /// The message's Date.
    pub sent_at: Option<At>,
    /// Its Message-ID.
    pub message_id: Option<String>,
    /// Its In-Reply-To.
    pub in_reply_to: Option<String>,
    /// Its References.
    pub references: Vec<String>,
    /// Its media type.
    pub content_type: Option<String>,
    /// How many documents it brought.
    pub documents_count: i64,
    /// When it was received.
    pub created_at: At,
    /// When it last changed.
    pub updated_at: At,
}

/// Relationships of an e-mail submission.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EmailSubmissionRelationships {
    /// The account (`account`).
    pub account: ToOne,
    /// The person who sent it in (not kept: always null).
    pub user: ToOne,
    /// Its documents (`document`).
    pub documents: ToMany,
}

/// The `email_submission` resource with its documents' ids.
pub fn email_submission(e: &SubmissionRow, document_ids: &[Uuid]) -> Resource<EmailSubmission> {
    Resource {
        id: e.id,
        attributes: EmailSubmissionAttributes {
            subject: e.subject.clone(),
            body: e.body.clone(),
            from: e.from_addrs.clone(),
            to: e.to_addrs.clone(),
            cc: e.cc_addrs.clone(),
            sent_at: At::opt(e.sent_us),
            message_id: e.message_id.clone(),
            in_reply_to: e.in_reply_to.clone(),
            references: e.references_ids.clone(),
            content_type: e.content_type.clone(),
            documents_count: e.documents_count,
            created_at: At(e.created_us),
            updated_at: At(e.updated_us),
        },
        relationships: EmailSubmissionRelationships {
            account: ToOne::new("account", Some(e.account_id)),
            user: ToOne::none(),
            documents: ToMany::new("document", document_ids),
        },
    }
}
