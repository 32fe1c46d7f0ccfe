import ArgumentParser
import Foundation

/// The entry point: parses the command line and runs the command. Every failure the user can
/// cause ends with one line on standard error and exit status 2.
@main
enum RainforestMain {
    @MainActor
    static func main() {
        setlocale(LC_CTYPE, "") // the user's character set, for the window system's text
        do {
            let command = try RainforestCommand.parseAsRoot()
            switch command {
            case let run as RunCommand: try run.execute()
            case let screenshot as ScreenshotCommand: try screenshot.execute()
            case let bench as BenchCommand: try bench.execute()
            case let soak as SoakCommand: try soak.execute()
            default: // the parser's own commands, such as `help`
                var other = command
                try other.run()
            }
        } catch let error as UserFacingError {
            fail(error.message, status: error.status)
        } catch {
            if RainforestCommand.exitCode(for: error) == .success {
                RainforestCommand.exit(withError: error) // help or version: printed, status 0
            }
            fail(RainforestCommand.message(for: error))
        }
    }

    static func fail(_ message: String, status: Int32 = 2) -> Never {
        let line = message.split(separator: "\n").first.map(String.init) ?? message
        FileHandle.standardError.write(Data("rainforest: \(line.replacingOccurrences(of: "Error: ", with: ""))\n".utf8))
        exit(status)
    }
}

/// An error to show the user as one line, with an exit status.
struct UserFacingError: Error {
    var message: String
    var status: Int32 = 2
}
