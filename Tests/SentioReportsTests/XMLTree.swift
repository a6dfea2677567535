import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed XML element, for structure checks of the generated SVG and HTML.
final class XMLNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLNode] = []
    var text = ""
    weak var parent: XMLNode?

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// Every descendant (depth first, self included) satisfying `predicate`.
    func all(where predicate: (XMLNode) -> Bool) -> [XMLNode] {
        var out: [XMLNode] = predicate(self) ? [self] : []
        for c in children { out += c.all(where: predicate) }
        return out
    }

    func all(_ name: String) -> [XMLNode] { all { $0.name == name } }

    /// Text of this element and its descendants.
    var deepText: String { text + children.map(\.deepText).joined() }
}

struct XMLParseFailure: Error, CustomStringConvertible {
    var description: String
}

/// Parses `text` with Foundation's XMLParser (libxml2 underneath); throws on any well-formedness error.
func parseXML(_ text: String) throws -> XMLNode {
    final class Delegate: NSObject, XMLParserDelegate {
        var stack: [XMLNode] = [XMLNode(name: "#document", attributes: [:])]
        var error: Error?
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let node = XMLNode(name: name, attributes: attributes)
            node.parent = stack.last
            stack.last!.children.append(node)
            stack.append(node)
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last!.text += string }
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }
    }
    let parser = XMLParser(data: Data(text.utf8))
    let delegate = Delegate()
    parser.delegate = delegate
    let ok = parser.parse()
    if !ok || delegate.error != nil {
        throw XMLParseFailure(description: "not well-formed XML at line \(parser.lineNumber), column \(parser.columnNumber): \(String(describing: parser.parserError ?? delegate.error))")
    }
    return delegate.stack[0]
}

/// The number of vertices in an SVG path made only of absolute `M` and `L` commands.
func vertexCount(ofPath d: String) -> Int { d.filter { $0 == "M" || $0 == "L" }.count }

/// The vertices of such a path.
func vertices(ofPath d: String) -> [(x: Double, y: Double)] {
    d.split(whereSeparator: { $0 == "M" || $0 == "L" }).map { pair in
        let xy = pair.split(separator: ",")
        return (Double(xy[0])!, Double(xy[1])!)
    }
}
