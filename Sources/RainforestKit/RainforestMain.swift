import ArgumentParser
import Canopy
import CanopyMemory
import CanopySDL
import CanopyGraphics
import Foundation
import Logging

/// The app's entry point, called by the `rainforest` executable's main.swift: parses the command
/// line and runs the command. Every failure the user can cause ends with one line on standard
/// error and exit status 2.
public enum RainforestMain {
    /// When the program reached its entry point (monotonic seconds): `bench --scenario startup`
    /// measures the first screen from there.
    @MainActor static var startTime = MonotonicClock.now()

    /// How a run ended, when it did not exit by itself.
    private enum Ending {
        case finished
        /// Help or version text, printed to standard output with status 0.
        case printed(String)
        case failed(UserFacingError)
    }

    @MainActor
    public static func main() {
        startTime = MonotonicClock.now()
        // Before any other thread allocates: one arena, which the memory trim reaches whole.
        MallocArenas.limitToOne()
        setlocale(LC_CTYPE, "")  // the user's character set, for the window system's text
        // What Canopy logs, warnings and worse, goes to standard error through swift-log.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        // The process exits only after `run` has returned, when the parsed command and any
        // parse error are released: LeakSanitizer (make test-asan) cannot see the parser's
        // error through the Swift enums that hold it, and reported its contents as leaked
        // when the process exited while it was alive.
        switch run() {
        case .finished:
            return
        case .printed(let text):
            if !text.isEmpty { print(text) }
            exit(0)
        case .failed(let error):
            fail(error.message, status: error.status)
        }
    }

    @MainActor
    private static func run() -> Ending {
        do {
            let command = try RainforestCommand.parseAsRoot()
            switch command {
            case let run as RunCommand: try run.execute()
            case let screenshot as ScreenshotCommand: try screenshot.execute()
            case let bench as BenchCommand: try bench.execute()
            case let soak as SoakCommand: try soak.execute()
            case let icon as IconCommand: try icon.execute()
            default:  // the parser's own commands, such as `help`
                var other = command
                try other.run()
            }
            // The thumbnail being written lands whole; those still queued are made next time.
            Thumbnails.finishWrites()
            return .finished
        } catch let error as UserFacingError {
            return .failed(error)
        } catch {
            if RainforestCommand.exitCode(for: error) == .success {
                return .printed(RainforestCommand.fullMessage(for: error))  // help or version
            }
            return .failed(UserFacingError(message: RainforestCommand.message(for: error)))
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
