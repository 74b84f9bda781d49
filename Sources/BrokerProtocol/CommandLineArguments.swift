/// A small, strict command-line parser shared by `authctl` and `authbrokerd`.
///
/// Accepts `--name value`, `--name=value`, boolean `--flag`, repeatable options, positionals, and `--`
/// (everything after it is positional). Unknown options, missing values and values given to flags are
/// usage errors whose message names the command and where to read more.
public struct CommandLineArguments: Sendable {
    /// One accepted option.
    public struct Option: Sendable, Hashable {
        public let name: String
        public let takesValue: Bool
        public let repeatable: Bool

        public static func flag(_ name: String) -> Option { Option(name: name, takesValue: false, repeatable: false) }
        public static func value(_ name: String) -> Option { Option(name: name, takesValue: true, repeatable: false) }
        public static func repeated(_ name: String) -> Option { Option(name: name, takesValue: true, repeatable: true) }
    }

    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []
    /// Arguments after a literal `--`, kept apart for commands that run other programs.
    public private(set) var passthrough: [String]? = nil

    /// Parses `arguments` for `command` (e.g. "authctl token"), accepting `options`.
    /// With `stopAtFirstPositional`, parsing stops at the first positional and the rest is left in
    /// `positionals` untouched (for global options that precede a subcommand).
    public init(
        _ arguments: [String], command: String, options: [Option], stopAtFirstPositional: Bool = false
    ) throws(UsageError) {
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                passthrough = Array(arguments[index...])
                return
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                positionals.append(argument)
                if stopAtFirstPositional {
                    positionals.append(contentsOf: arguments[index...])
                    return
                }
                continue
            }
            var name = argument
            var inlineValue: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = byName[name] else {
                let guess = Suggestion.phrase(for: name, among: options.map(\.name))
                throw UsageError("unknown option '\(ShownText.argument(name))' for '\(command)'\(guess); see: \(command) --help")
            }
            guard option.takesValue else {
                if inlineValue != nil { throw UsageError("'\(name)' takes no value (in '\(command)')") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError("'\(name)' needs a value (in '\(command)')") }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, values[name] != nil {
                throw UsageError("'\(name)' given twice (in '\(command)')")
            }
            values[name, default: []].append(value)
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option within `range`, or a usage error naming the option.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(ShownText.argument(text))'"
            )
        }
        return number
    }
}

/// A command-line mistake: printed as one line, exit code 64.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
