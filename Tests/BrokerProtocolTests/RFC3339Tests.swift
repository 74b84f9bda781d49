import BrokerProtocol
import Testing
import WireFormats

@Test(arguments: [
    (0.0, "1970-01-01T00:00:00Z"),
    (951_782_400, "2000-02-29T00:00:00Z"),
    (1_796_000_000, "2026-11-30T00:53:20Z"),
    (-1, "1969-12-31T23:59:59Z"),
    (4_102_444_800, "2100-01-01T00:00:00Z"),
    (1_796_035_199, "2026-11-30T10:39:59Z"),
    (253_402_300_799, "9999-12-31T23:59:59Z"),
    (-62_135_596_800, "0001-01-01T00:00:00Z"),
])
func formatsUTC(seconds: Double, text: String) {
    #expect(RFC3339.format(unixSeconds: seconds) == text)
    #expect(RFC3339.parse(text) == seconds)
}

@Test(arguments: [
    (253_402_300_800.0, "10000-01-01T00:00:00Z"),
    (-62_167_219_200, "0000-01-01T00:00:00Z"),
])
func formatsTheEdgesOfFourDigitYears(seconds: Double, text: String) {
    #expect(RFC3339.format(unixSeconds: seconds) == text)
}

@Test func roundsFractionsDown() {
    #expect(RFC3339.format(unixSeconds: 1_796_035_199.9) == "2026-11-30T10:39:59Z")
    #expect(RFC3339.format(unixSeconds: -0.5) == "1969-12-31T23:59:59Z")
}

@Test func parsesOffsetsAndFractions() {
    #expect(RFC3339.parse("2026-11-30T01:53:20+01:00") == 1_796_000_000)
    #expect(RFC3339.parse("2026-11-29T23:53:20-01:00") == 1_796_000_000)
    #expect(RFC3339.parse("1970-01-01T00:00:00.5Z") == 0.5)
}

@Test(arguments: [
    "", "2026-11-30", "2026-13-01T00:00:00Z", "2026-11-30T00:00:00", "2026-11-30T00:00:00Zjunk",
    "2026-11-30 00:00:00Z", "2026-11-30T00:00:00.Z", "２026-11-30T00:00:00Z",
])
func rejectsMalformed(text: String) {
    #expect(RFC3339.parse(text) == nil)
}
