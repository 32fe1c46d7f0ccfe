import Foundation

/// Where the viewer remembers favourites across runs: `rainforest/favourites.json` under the user's
/// config folder (`$XDG_CONFIG_HOME`, else `~/.config`). Each favourite is an item and the card's
/// name, so a favourite comes back only on the card it was given to (a run with another
/// `--cards` or other cards ignores the rest). A file that cannot be read or parsed is reported
/// once on standard error and treated as empty; it is replaced at the next change.
struct FavouritesStore: Sendable {
    struct Entry: Codable, Hashable, Sendable {
        var item: Int
        var name: String
    }
    private struct File: Codable {
        var favourites: [Entry]
    }

    let url: URL

    /// The store in the user's config folder.
    static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> FavouritesStore {
        let base: URL
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty, xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
            base = home.appendingPathComponent(".config")
        }
        return FavouritesStore(url: base.appendingPathComponent("rainforest/favourites.json"))
    }

    /// The saved favourites (none when there is no file yet).
    func load() -> [Entry] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).favourites
        } catch {
            FileHandle.standardError.write(
                Data(
                    "rainforest: \(url.path): cannot read the favourites (\(error.localizedDescription)); starting with none\n"
                        .utf8))
            return []
        }
    }

    /// Writes the favourites (atomically, creating the folder); a failure is reported, not thrown:
    /// the viewer keeps running with them in memory.
    func save(_ entries: [Entry]) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(File(favourites: entries.sorted { ($0.item, $0.name) < ($1.item, $1.name) })).write(
                to: url, options: .atomic)
        } catch {
            FileHandle.standardError.write(
                Data("rainforest: \(url.path): cannot save the favourites (\(error.localizedDescription))\n".utf8))
        }
    }
}
