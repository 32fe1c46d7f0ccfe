import Foundation

/// The folder of photos, fonts and cards.json, found however the app was started.
struct Resources: Sendable, Equatable {
    let root: URL

    var cardsFile: URL { root.appendingPathComponent("cards.json") }
    var fontsDirectory: URL { root.appendingPathComponent("fonts") }

    /// The file of a card's image (a path relative to the folder).
    func imageURL(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// Looks for the folder, in order: `override` (the --resources option), the
    /// RAINFOREST_RESOURCES environment variable, `Resources` beside the executable or any of
    /// its parent folders (a build in .build/release finds the package's), `share/rainforest`
    /// beside an installed binary's parent, and `Resources` in the current directory.
    static func locate(
        override: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL? = Resources.executableURL(),
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    )
        throws(ResourcesError) -> Resources
    {
        if let override {
            return try checked(
                URL(fileURLWithPath: override, relativeTo: currentDirectory).standardizedFileURL,
                source: "--resources")
        }
        if let fromEnvironment = environment["RAINFOREST_RESOURCES"], !fromEnvironment.isEmpty {
            return try checked(
                URL(fileURLWithPath: fromEnvironment, relativeTo: currentDirectory).standardizedFileURL,
                source: "RAINFOREST_RESOURCES")
        }
        var candidates: [URL] = []
        if let executable {
            var folder = executable.deletingLastPathComponent()
            for _ in 0..<8 {
                candidates.append(folder.appendingPathComponent("Resources"))
                candidates.append(folder.appendingPathComponent("share/rainforest"))
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        candidates.append(currentDirectory.appendingPathComponent("Resources"))
        for candidate in candidates where isResources(candidate) {
            return Resources(root: candidate.standardizedFileURL)
        }
        throw ResourcesError(
            message:
                "cannot find the Resources folder (looked beside \(executable?.path ?? "the executable") and in \(currentDirectory.path)); pass --resources DIR"
        )
    }

    static func executableURL() -> URL? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }
        }
        return URL(fileURLWithPath: path)
    }

    private static func isResources(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent("cards.json").path)
    }

    private static func checked(_ url: URL, source: String) throws(ResourcesError) -> Resources {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ResourcesError(message: "\(source) \(url.path): no such folder")
        }
        guard isDirectory.boolValue else { throw ResourcesError(message: "\(source) \(url.path): not a folder") }
        guard isResources(url) else { throw ResourcesError(message: "\(source) \(url.path): no cards.json in it") }
        return Resources(root: url)
    }
}

struct ResourcesError: Error, Equatable, CustomStringConvertible {
    var message: String
    var description: String { message }
}
