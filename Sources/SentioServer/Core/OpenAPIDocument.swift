// The OpenAPI 3.1 document of `sentio serve`, served at `GET /openapi.json`: Resources/openapi.json, compiled into
// the binary by SwiftPM (`.embedInCode`), so the file in the repository is the one document.
enum OpenAPIDocument {
    static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
