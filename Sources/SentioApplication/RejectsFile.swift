/// The `--rejects FILE` CSV that lenient reading writes: header `file,line,reason`, then one row per skipped line in
/// the order given; cells quoted only when they hold `,`, `"` or a line break (RFC 4180); an unknown line is an
/// empty cell; lines end with `\n`. Only the header when nothing was skipped.
public enum RejectsFile {
    public static func csv(_ rows: [(file: String, line: Int?, reason: String)]) -> String {
        func cell(_ s: String) -> String {
            s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }
        var text = "file,line,reason\n"
        for row in rows { text += "\(cell(row.file)),\(row.line.map(String.init) ?? ""),\(cell(row.reason))\n" }
        return text
    }
}
