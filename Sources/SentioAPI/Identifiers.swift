import SentioSignals

/// Deterministic contract ids: RFC 4122 / RFC 9562 version-5 (name-based, SHA-1) UUIDs in the URL namespace
/// (`6ba7b811-9dad-11d1-80b4-00c04fd430c8`), over a name built from the object's content,
/// `sentio:KIND:PART:PART…` (e.g. `sentio:trade:TQQQ:2023-03-01T00:00:00Z:2023-03-09T00:00:00Z`).
///
/// The same content gives the same id in every run, on every machine, and equals Python's
/// `uuid.uuid5(uuid.NAMESPACE_URL, name)`. The SHA-1 and UUIDv5 code is SentioSignals' `NameBasedUUID`
/// (which `Signal.id` already uses), reused rather than copied.
public enum ContractID {
    /// The version-5 UUID of `sentio:` + `parts` joined with `:`, lowercase 8-4-4-4-12.
    public static func make(_ parts: String...) -> String {
        NameBasedUUID.version5(namespace: NameBasedUUID.urlNamespace, name: (["sentio"] + parts).joined(separator: ":"))
    }

    /// RFC 4122 version-5 UUID of `name` in a 16-byte `namespace` (for checks against published vectors).
    public static func version5(namespace: [UInt8], name: String) -> String {
        NameBasedUUID.version5(namespace: namespace, name: name)
    }
}
