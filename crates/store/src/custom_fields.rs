//! Custom field definitions, their options and their values (rules in
//! `boxtrack_core::custom_fields`).

use boxtrack_core::paging::{Key, Page};
use serde_json::Value;
/// JSON column values (re-exported for the HTTP edge, which has no sqlx of its own).
pub use sqlx::types::Json;
use uuid::Uuid;

use crate::list::{Arg, Cond, Keyed, ListSpec, Listed};
use crate::{Db, Result, StoreError, now_us, on_db, on_tx};

/// A stored definition.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct DefinitionRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// `Shipment`, `Container` or `TrackingRequest`.
    pub entity_type: String,
    /// Key of the field in requests.
    pub api_slug: String,
    /// Label.
    pub display_name: String,
    /// Description.
    pub description: Option<String>,
    /// `short_text`, `number`, ….
    pub data_type: String,
    /// For references: the resource type pointed at.
    pub reference_type: Option<String>,
    /// Rules (or null).
    #[sqlx(json)]
    pub validation: Value,
    /// How to format dates, when set.
    pub default_format: Option<String>,
    /// The default value (shown on the definition; null for none).
    #[sqlx(json)]
    pub default_value: Value,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
}

impl Keyed for DefinitionRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const DEF_COLUMNS: &str = "id, account_id, entity_type, api_slug, display_name, description, data_type, reference_type, validation, default_format, default_value, created_us, updated_us";

/// Creates a definition; [`StoreError::Duplicate`] when the slug is taken for the entity type.
pub async fn create_definition(db: &Db, d: &DefinitionRow) -> Result<()> {
    let done = on_db!(db, p => sqlx::query(
        "INSERT INTO custom_field_definitions (id, account_id, entity_type, api_slug, display_name, description, data_type, reference_type, validation, default_format, default_value, created_us, updated_us) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)")
        .bind(d.id).bind(d.account_id).bind(&d.entity_type).bind(&d.api_slug).bind(&d.display_name)
        .bind(&d.description).bind(&d.data_type).bind(&d.reference_type).bind(&d.validation)
        .bind(&d.default_format).bind(&d.default_value).bind(d.created_us).bind(d.updated_us)
        .execute(p).await.map(|_| ()));
    match done {
        Err(e) if crate::unique_violation(&e) => {
            Err(StoreError::Duplicate("custom field definition"))
        }
        other => Ok(other?),
    }
}

/// One definition of the account.
pub async fn definition(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<DefinitionRow>> {
    let sql = format!(
        "SELECT {DEF_COLUMNS} FROM custom_field_definitions WHERE id = $1 AND account_id = $2"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_optional(p).await?),
    )
}

/// The account's definition of `api_slug` for an entity type.
pub async fn definition_by_slug(
    db: &Db,
    account_id: Uuid,
    entity_type: &str,
    api_slug: &str,
) -> Result<Option<DefinitionRow>> {
    let sql = format!(
        "SELECT {DEF_COLUMNS} FROM custom_field_definitions WHERE account_id = $1 AND entity_type = $2 AND api_slug = $3"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(account_id).bind(entity_type).bind(api_slug).fetch_optional(p).await?),
    )
}

/// Filters of the definition list.
#[derive(Debug, Clone, Default)]
pub struct DefinitionFilter {
    /// Entity type.
    pub entity_type: Option<String>,
    /// Data type.
    pub data_type: Option<String>,
    /// Part of the display name (case-insensitive).
    pub display_name: Option<String>,
}

/// A page of the account's definitions, newest first.
pub async fn definitions(
    db: &Db,
    account_id: Uuid,
    f: &DefinitionFilter,
    page: &Page,
) -> Result<Listed<DefinitionRow>> {
    let mut conds = vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])];
    if let Some(e) = &f.entity_type {
        conds.push(Cond::new("entity_type = ?", vec![Arg::Text(e.clone())]));
    }
    if let Some(d) = &f.data_type {
        conds.push(Cond::new("data_type = ?", vec![Arg::Text(d.clone())]));
    }
    if let Some(n) = &f.display_name {
        conds.push(Cond::new(
            "UPPER(display_name) LIKE ?",
            vec![Arg::Text(format!(
                "%{}%",
                n.to_uppercase().replace(['%', '_'], "")
            ))],
        ));
    }
    let spec = ListSpec {
        from: "custom_field_definitions",
        columns: DEF_COLUMNS,
        sort_col: "created_us",
        ascending: false,
        id_col: "id",
        conds,
    };
    crate::list::list(db, &spec, page).await
}

/// Saves the changeable parts of a definition (display name, description, validation,
/// default format and value).
pub async fn update_definition(db: &Db, d: &DefinitionRow) -> Result<()> {
    on_db!(db, p => sqlx::query(
        "UPDATE custom_field_definitions SET display_name = $3, description = $4, validation = $5, default_format = $6, default_value = $7, updated_us = $8 WHERE id = $1 AND account_id = $2")
        .bind(d.id).bind(d.account_id).bind(&d.display_name).bind(&d.description).bind(&d.validation)
        .bind(&d.default_format).bind(&d.default_value).bind(now_us())
        .execute(p).await.map(|_| ())?);
    Ok(())
}

/// Deletes a definition with its options and every value set for it; false when the
/// account has no such definition.
pub async fn delete_definition(db: &Db, account_id: Uuid, id: Uuid) -> Result<bool> {
    let mut tx = db.begin().await?;
    let owned: Option<Uuid> = on_tx!(&mut tx, c => sqlx::query_scalar("SELECT id FROM custom_field_definitions WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).fetch_optional(c).await?);
    if owned.is_none() {
        return Ok(false);
    }
    for sql in [
        "DELETE FROM custom_fields WHERE account_id = $2 AND definition_id = $1",
        "DELETE FROM custom_field_options WHERE account_id = $2 AND definition_id = $1",
        "DELETE FROM custom_field_definitions WHERE account_id = $2 AND id = $1",
    ] {
        on_tx!(&mut tx, c => sqlx::query(sql).bind(id).bind(account_id).execute(c).await.map(|_| ())?);
    }
    tx.commit().await?;
    Ok(true)
}

/// A stored option of an enum definition.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct OptionRow {
    /// Id.
    pub id: Uuid,
    /// Its definition.
    pub definition_id: Uuid,
    /// Label.
    pub label: String,
    /// Value stored in fields.
    pub value: String,
    /// Order.
    pub position: Option<i64>,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
}

/// The options of a definition, in position order (then creation).
pub async fn options(db: &Db, account_id: Uuid, definition_id: Uuid) -> Result<Vec<OptionRow>> {
    const SQL: &str = "SELECT id, definition_id, label, value, position, created_us, updated_us FROM custom_field_options WHERE account_id = $2 AND definition_id = $1 \
        ORDER BY CASE WHEN position IS NULL THEN 1 ELSE 0 END, position, created_us, id";
    Ok(
        on_db!(db, p => sqlx::query_as(SQL).bind(definition_id).bind(account_id).fetch_all(p).await?),
    )
}

/// Creates or changes an option; [`StoreError::Duplicate`] when the value is taken.
pub async fn save_option(db: &Db, account_id: Uuid, o: &OptionRow, create: bool) -> Result<()> {
    let sql = if create {
        "INSERT INTO custom_field_options (id, definition_id, label, value, position, created_us, updated_us, account_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    } else {
        "UPDATE custom_field_options SET label = $3, value = $4, position = $5, updated_us = $7 WHERE account_id = $8 AND id = $1 AND definition_id = $2"
    };
    let done = on_db!(db, p => sqlx::query(sql)
        .bind(o.id).bind(o.definition_id).bind(&o.label).bind(&o.value).bind(o.position).bind(o.created_us).bind(o.updated_us).bind(account_id)
        .execute(p).await.map(|_| ()));
    match done {
        Err(e) if crate::unique_violation(&e) => Err(StoreError::Duplicate("custom field option")),
        other => Ok(other?),
    }
}

/// Deletes an option; false when the definition has no such option.
pub async fn delete_option(
    db: &Db,
    account_id: Uuid,
    definition_id: Uuid,
    id: Uuid,
) -> Result<bool> {
    let n = on_db!(db, p => sqlx::query("DELETE FROM custom_field_options WHERE account_id = $3 AND id = $1 AND definition_id = $2")
        .bind(id).bind(definition_id).bind(account_id).execute(p).await?.rows_affected());
    Ok(n == 1)
}

/// A value set on an entity, with its definition's slug and type.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FieldRow {
    /// Id.
    pub id: Uuid,
    /// Owner.
    pub account_id: Uuid,
    /// Its definition.
    pub definition_id: Uuid,
    /// `Shipment`, `Container` or `TrackingRequest`.
    pub entity_type: String,
    /// The entity.
    pub entity_id: Uuid,
    /// The value (JSON).
    #[sqlx(json)]
    pub value: Value,
    /// Created.
    pub created_us: i64,
    /// Last change.
    pub updated_us: i64,
    /// The definition's slug.
    pub api_slug: String,
    /// The definition's data type.
    pub data_type: String,
    /// The definition's label.
    pub display_name: String,
}

impl Keyed for FieldRow {
    fn key(&self) -> Key {
        Key {
            sort_us: self.created_us,
            id: *self.id.as_bytes(),
        }
    }
}

const FIELD_FROM: &str = "custom_fields f JOIN custom_field_definitions d ON d.account_id = f.account_id AND d.id = f.definition_id";
const FIELD_COLUMNS: &str = "f.id, f.account_id, f.definition_id, f.entity_type, f.entity_id, f.value, f.created_us, f.updated_us, d.api_slug, d.data_type, d.display_name";

/// Sets a value (a new field); [`StoreError::Duplicate`] when the entity has one for the
/// definition already.
pub async fn create_field(
    db: &Db,
    def: &DefinitionRow,
    entity_id: Uuid,
    value: &Value,
) -> Result<Uuid> {
    let now = now_us();
    let id = Uuid::now_v7();
    let done = on_db!(db, p => sqlx::query(
        "INSERT INTO custom_fields (id, account_id, definition_id, entity_type, entity_id, value, created_us, updated_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)")
        .bind(id).bind(def.account_id).bind(def.id).bind(&def.entity_type).bind(entity_id).bind(Json(value)).bind(now)
        .execute(p).await.map(|_| ()));
    match done {
        Err(e) if crate::unique_violation(&e) => Err(StoreError::Duplicate("custom field")),
        other => {
            other?;
            Ok(id)
        }
    }
}

/// One field of the account.
pub async fn field(db: &Db, account_id: Uuid, id: Uuid) -> Result<Option<FieldRow>> {
    let sql =
        format!("SELECT {FIELD_COLUMNS} FROM {FIELD_FROM} WHERE f.id = $1 AND f.account_id = $2");
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_optional(p).await?),
    )
}

/// Every value set with a definition of the account, newest first (what `include=fields`
/// on a definition lists).
pub async fn fields_of_definition(
    db: &Db,
    account_id: Uuid,
    definition_id: Uuid,
) -> Result<Vec<FieldRow>> {
    let sql = format!(
        "SELECT {FIELD_COLUMNS} FROM {FIELD_FROM} WHERE f.account_id = $1 AND f.definition_id = $2 ORDER BY f.created_us DESC, f.id DESC"
    );
    Ok(
        on_db!(db, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(account_id).bind(definition_id).fetch_all(p).await?),
    )
}

/// Replaces a field's value.
pub async fn set_value(db: &Db, account_id: Uuid, id: Uuid, value: &Value) -> Result<()> {
    on_db!(db, p => sqlx::query("UPDATE custom_fields SET value = $3, updated_us = $4 WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).bind(Json(value)).bind(now_us()).execute(p).await.map(|_| ())?);
    Ok(())
}

/// Deletes a field; false when the account has no such field.
pub async fn delete_field(db: &Db, account_id: Uuid, id: Uuid) -> Result<bool> {
    let n = on_db!(db, p => sqlx::query("DELETE FROM custom_fields WHERE id = $1 AND account_id = $2")
        .bind(id).bind(account_id).execute(p).await?.rows_affected());
    Ok(n == 1)
}

/// Filters of the field list.
#[derive(Debug, Clone, Default)]
pub struct FieldFilter {
    /// Entity type.
    pub entity_type: Option<String>,
    /// The entity.
    pub entity_id: Option<Uuid>,
    /// The definition.
    pub definition_id: Option<Uuid>,
}

/// A page of the account's fields, newest first.
pub async fn fields(
    db: &Db,
    account_id: Uuid,
    f: &FieldFilter,
    page: &Page,
) -> Result<Listed<FieldRow>> {
    let mut conds = vec![Cond::new("f.account_id = ?", vec![Arg::Uuid(account_id)])];
    if let Some(e) = &f.entity_type {
        conds.push(Cond::new("f.entity_type = ?", vec![Arg::Text(e.clone())]));
    }
    if let Some(e) = f.entity_id {
        conds.push(Cond::new("f.entity_id = ?", vec![Arg::Uuid(e)]));
    }
    if let Some(d) = f.definition_id {
        conds.push(Cond::new("f.definition_id = ?", vec![Arg::Uuid(d)]));
    }
    let spec = ListSpec {
        from: FIELD_FROM,
        columns: FIELD_COLUMNS,
        sort_col: "f.created_us",
        ascending: false,
        id_col: "f.id",
        conds,
    };
    crate::list::list(db, &spec, page).await
}
