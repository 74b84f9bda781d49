import BrokerCore
import Testing

@Test func loggerFiltersByLevelAndRendersMetadata() {
    let capture = LogCapture()
    let logger = capture.logger(minimumLevel: .info).with(["account": "work"])
    logger.debug("hidden")
    logger.info("refreshed", ["attempt": "2", "note": "two words"])
    logger.error("bad\nline")
    #expect(
        capture.captured == [
            "info: refreshed account=work attempt=2 note=\"two words\"",
            #"error: bad\nline account=work"#,
        ])
}

@Test func quotingKeepsOneEventOnOneLine() {
    let capture = LogCapture()
    capture.logger.info("x", ["v": "a\nb\"c"])
    #expect(capture.captured == [#"info: x v="a\nb\"c""#])
}

@Test func levelNames() {
    #expect(Logger.Level(name: "warning") == .warning)
    #expect(Logger.Level(name: "loud") == nil)
    #expect(Logger.Level.info.syslogPriority == 6)
}
