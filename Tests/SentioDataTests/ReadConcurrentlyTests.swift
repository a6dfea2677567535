import Foundation
import SentioCore
import SentioData
import SentioTestSupport
import Testing

@Suite("OHLCVReader.readConcurrently")
struct ReadConcurrentlyTests {
    @Test("equals reading the files one after another, in file order, symbols from the file names")
    func sameAsSequential() throws {
        let files = try OHLCVReader.expand(paths: [repositoryRoot.appendingPathComponent("Data/market").path])
        #expect(files.count == 12)
        let concurrent = try OHLCVReader.readConcurrently(files)
        let sequential = try OHLCVReader.readAll(paths: files)
        #expect(concurrent.map(\.symbol) == files.map(OHLCVReader.symbolFromPath))
        #expect(concurrent == sequential)
        #expect(try OHLCVReader.readConcurrently([]).isEmpty)
    }

    @Test("several bad files: the error of the first one in file order, whichever task fails first")
    func firstErrorByFileOrder() throws {
        let directory = try temporaryDirectory("read-concurrently")
        let good = "timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,1.5,10\n"
        var files: [String] = []
        for k in 0..<16 {
            let url = directory.appendingPathComponent("S\(k).csv")
            // Files 5 and 11 are broken (a bad number on line 2 and on line 3).
            let text = k == 5 ? "timestamp,open,high,low,close,volume\n2024-01-02,1,2,0.5,x,10\n"
                : k == 11 ? good + "2024-01-03,1,2,0.5,y,10\n" : good
            try text.write(to: url, atomically: true, encoding: .utf8)
            files.append(url.path)
        }
        for _ in 0..<20 {
            do {
                _ = try OHLCVReader.readConcurrently(files)
                Issue.record("broken files were read")
            } catch {
                #expect("\(error)".contains("S5.csv"), "\(error)")
            }
        }
    }
}
