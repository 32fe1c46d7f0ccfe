import Foundation

/// A program the bench starts and waits for (the bare SDL program, itself under valgrind, itself
/// for a cold start): its exit status, its standard output, and its standard error, which goes to
/// a file rather than a second pipe (a child that filled a pipe of errors while we read its output
/// to the end would block forever).
enum ChildProcess {
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String

        /// The last lines of standard error, for a failure's message.
        var errorsTail: String { errors.split(separator: "\n").suffix(5).joined(separator: "\n") }
    }

    /// Runs `executable` with `arguments`, in this process's environment with `extra` over it.
    static func run(
        _ executable: URL, _ arguments: [String], environment extra: [String: String] = [:]
    ) throws(UserFacingError) -> Outcome {
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rainforest-child-\(UUID().uuidString).stderr")
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        do {
            guard FileManager.default.createFile(atPath: errorsFile.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let errors = try FileHandle(forWritingTo: errorsFile)
            defer { try? errors.close() }
            process.standardError = errors
            try process.run()
        } catch {
            throw UserFacingError(message: "bench: cannot run \(executable.path): \(error.localizedDescription)", status: 1)
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = (try? FileHandle(forReadingFrom: errorsFile)).map { handle in
            defer { try? handle.close() }
            return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        }
        return Outcome(
            status: process.terminationStatus, output: String(decoding: data, as: UTF8.self), errors: errors ?? "")
    }
}
