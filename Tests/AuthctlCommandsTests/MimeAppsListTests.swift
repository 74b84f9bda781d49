import Foundation
import Testing

@testable import AuthctlCommands

/// Editing `mimeapps.list`: one key of `[Default Applications]` changes, every other byte stays.
@Suite struct MimeAppsListTests {
    let mime = "x-scheme-handler/shop.4242.app"
    let ours = "authbroker-shop.4242.app.desktop"

    private func set(_ text: String) -> (text: String, changed: Bool) {
        var list = MimeAppsList(Array(text.utf8))
        let changed = list.setDefault(mime, to: ours)
        return (String(decoding: list.bytes, as: UTF8.self), changed)
    }

    private func remove(_ text: String) -> (text: String, changed: Bool) {
        var list = MimeAppsList(Array(text.utf8))
        let changed = list.removeDefault(mime, ifItIs: ours)
        return (String(decoding: list.bytes, as: UTF8.self), changed)
    }

    @Test func aMissingFileGetsTheGroupAndTheLine() {
        #expect(set("") == ("[Default Applications]\n\(mime)=\(ours)\n", true))
    }

    @Test func theLineGoesAfterTheLastKeyOfAnExistingGroupKeepingCommentsAndOtherGroups() {
        let before = """
            # my defaults
            [Added Associations]
            text/plain=gedit.desktop;

            [Default Applications]
            # browsers
            x-scheme-handler/https=firefox.desktop
            text/html=firefox.desktop

            [Removed Associations]
            image/png=gimp.desktop;

            """
        let after = before.replacingOccurrences(
            of: "text/html=firefox.desktop\n", with: "text/html=firefox.desktop\n\(mime)=\(ours)\n")
        #expect(set(before) == (after, true))
    }

    @Test func aFileWithoutTheGroupGetsItAppendedAfterABlankLine() {
        #expect(
            set("[Added Associations]\ntext/plain=gedit.desktop;") == (
                "[Added Associations]\ntext/plain=gedit.desktop;\n\n[Default Applications]\n\(mime)=\(ours)\n", true
            ))
    }

    @Test func anEmptyGroupAtTheEndWithoutANewlineGetsTheLineAfterItsHeader() {
        #expect(set("[Default Applications]") == ("[Default Applications]\n\(mime)=\(ours)\n", true))
    }

    @Test func crlfFilesKeepTheirLineEndsAndTheNewLineUsesThem() {
        let before = "[Default Applications]\r\ntext/html=firefox.desktop\r\n"
        #expect(set(before) == ("[Default Applications]\r\ntext/html=firefox.desktop\r\n\(mime)=\(ours)\r\n", true))
    }

    @Test func ourLineAlreadyThereChangesNothing() {
        let before = "[Default Applications]\ntext/html=firefox.desktop\n\(mime)=\(ours)\n# end\n"
        #expect(set(before) == (before, false))
    }

    @Test func anotherApplicationsDefaultIsReplacedInPlaceAndReported() {
        let before = "[Default Applications]\n\(mime)=other.desktop;\(ours);\ntext/html=firefox.desktop\n"
        var list = MimeAppsList(Array(before.utf8))
        #expect(list.defaults(for: mime) == ["other.desktop", ours])
        let changed = list.setDefault(mime, to: ours)
        #expect(changed)
        #expect(
            String(decoding: list.bytes, as: UTF8.self) == "[Default Applications]\n\(mime)=\(ours)\ntext/html=firefox.desktop\n")
    }

    @Test func duplicateKeysAndCaseVariantsCollapseIntoOneLine() {
        let before = "[Default Applications]\nX-Scheme-Handler/Shop.4242.App=a.desktop\nb=c\n\(mime)=d.desktop\n"
        #expect(set(before) == ("[Default Applications]\n\(mime)=\(ours)\nb=c\n", true))
    }

    @Test func theSameKeyInAnotherGroupIsNotTouched() {
        let before = "[Added Associations]\n\(mime)=other.desktop;\n"
        #expect(set(before).text == before + "\n[Default Applications]\n\(mime)=\(ours)\n")
    }

    @Test func bytesThatAreNotUTF8AreKept() {
        let before: [UInt8] = Array("# caf".utf8) + [0xE9, 10] + Array("[Default Applications]\n".utf8)
        var list = MimeAppsList(before)
        let changed = list.setDefault(mime, to: ours)
        #expect(changed)
        #expect(list.bytes == before + Array("\(mime)=\(ours)\n".utf8))
    }

    @Test func removalDropsOnlyOurLine() {
        let before = "# keep\r\n[Default Applications]\r\ntext/html=firefox.desktop\r\n\(mime)=\(ours)\r\n\r\n[X]\r\na=b\r\n"
        #expect(remove(before) == (before.replacingOccurrences(of: "\(mime)=\(ours)\r\n", with: ""), true))
    }

    @Test func removalLeavesAnotherApplicationsDefault() {
        let before = "[Default Applications]\n\(mime)=other.desktop\n"
        #expect(remove(before) == (before, false))
        #expect(remove("") == ("", false))
    }
}
