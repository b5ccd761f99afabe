-- Inbound e-mail: each message an account sends in, its attachments becoming documents.
CREATE TABLE email_submissions (
    id              UUID PRIMARY KEY NOT NULL,
    account_id      UUID NOT NULL REFERENCES accounts(id),
    subject         TEXT NOT NULL,
    body            TEXT,
    from_addrs      JSONB NOT NULL,
    to_addrs        JSONB NOT NULL,
    cc_addrs        JSONB NOT NULL,
    sent_us         BIGINT,
    message_id      TEXT,
    in_reply_to     TEXT,
    references_ids  JSONB NOT NULL,
    content_type    TEXT,
    created_us      BIGINT NOT NULL,
    updated_us      BIGINT NOT NULL
);
CREATE INDEX email_submissions_account ON email_submissions (account_id, created_us DESC, id DESC);
CREATE UNIQUE INDEX email_submissions_message ON email_submissions (account_id, message_id) WHERE message_id IS NOT NULL;
ALTER TABLE documents ADD COLUMN email_submission_id UUID REFERENCES email_submissions(id);
CREATE INDEX documents_email_submission ON documents (email_submission_id) WHERE email_submission_id IS NOT NULL;
