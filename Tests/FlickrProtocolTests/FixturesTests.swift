import Foundation
import Testing
import FlickrTestSupport

/// The fixtures live in the repository (Tests/Fixtures), and a fixture that is not there, or
/// holds nothing, fails the test that asked for it with its name — it is never an empty list.
@Suite(.timeLimit(.minutes(1)), .tags(.unit)) struct FixturesTests {
    @Test func theFixturesAreInTheRepository() throws {
        #expect(Fixtures.root.path == Fixtures.repository.appendingPathComponent("Tests/Fixtures").path)
        #expect(try Fixtures.files(in: "reflection-2017", suffix: ".json").count == 221)
        #expect(try Fixtures.string("README.md").contains("where it came from"))
    }

    @Test func aMissingOrEmptyFixtureIsAnErrorThatNamesIt() throws {
        func message(_ body: () throws -> Any) -> String? {
            do {
                _ = try body()
                return nil
            } catch let error as Fixtures.Missing {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        let folder = message { try Fixtures.files(in: "no-such-folder", suffix: ".xml") }
        #expect(folder?.contains("fixture folder Tests/Fixtures/no-such-folder is missing") == true, "\(folder ?? "no error")")
        let none = message { try Fixtures.files(in: "doc-examples", suffix: ".nothing") }
        #expect(none?.contains("Tests/Fixtures/doc-examples has no file ending in .nothing") == true, "\(none ?? "no error")")
        let file = message { try Fixtures.data("no-such-file.xml") }
        #expect(file?.contains("fixture Tests/Fixtures/no-such-file.xml is missing") == true, "\(file ?? "no error")")
        // A recorded 404 with no body: present, but empty.
        let empty = message { try Fixtures.data("real/flickr-foundation-cassettes/test_not_found_is_error__0.nonapi.404.txt") }
        #expect(empty?.contains("is empty") == true, "\(empty ?? "no error")")
        let folderAsFile = message { try Fixtures.data("errors") }
        #expect(folderAsFile?.contains("Tests/Fixtures/errors") == true, "\(folderAsFile ?? "no error")")
    }
}
