import CanopyGraphics
import Foundation
import Synchronization

/// What the bench's folder makers share (`CameraFolder`, `AnimationFolder`): the folder made if
/// missing, the files it lacks found, the bundled photos decoded once, and each missing file
/// written from one of them, two at a time (one per core), beside its place then renamed into it,
/// so that an interrupted run leaves no half file to be kept.
enum BenchFolder {
    /// Fills `folder` with the files 0..<`count` named by `name` that `isMade` (given a file's
    /// path) does not accept yet; `write` makes file `index` from the bundled photo `source` (they
    /// are used in turn) at the path it is given, and returns why it could not, or nil. The
    /// photos are decoded to fit `sourceFitting` (nil: full size). Returns how many it made.
    static func fill(
        _ folder: URL, count: Int, resources: Resources, sourceFitting: CGSize? = nil,
        name: @Sendable (Int) -> String, isMade: (String) -> Bool,
        write: @Sendable (_ index: Int, _ source: Bitmap, _ path: String) -> String?
    ) throws(UserFacingError) -> Int {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw UserFacingError(message: "bench: cannot make \(folder.path): \(error.localizedDescription)", status: 1)
        }
        let missing = (0..<count).filter { !isMade(folder.appendingPathComponent(name($0)).path) }
        guard !missing.isEmpty else { return 0 }
        let images = resources.root.appendingPathComponent("images")
        let sources: [Bitmap]
        do {
            let names = try FileManager.default.contentsOfDirectory(atPath: images.path).filter { !$0.hasPrefix(".") }.sorted()
            sources = try names.map { name throws -> Bitmap in
                try ImageDecoder.decode(contentsOf: images.appendingPathComponent(name).path, fitting: sourceFitting)
            }
        } catch {
            throw UserFacingError(message: "bench: cannot read the bundled photos: \(error)", status: 1)
        }
        guard !sources.isEmpty else { throw UserFacingError(message: "bench: no bundled photos", status: 1) }
        let failure = Mutex<String?>(nil)
        DispatchQueue.concurrentPerform(iterations: missing.count) { step in
            let index = missing[step]
            let path = folder.appendingPathComponent(name(index)).path
            let partial = folder.appendingPathComponent(".\(name(index)).partial").path
            if let problem = write(index, sources[index % sources.count], partial) {
                unlink(partial)
                failure.withLock { $0 = "\(path): \(problem)" }
            } else if rename(partial, path) != 0 {
                let reason = String(cString: strerror(errno))
                unlink(partial)
                failure.withLock { $0 = "\(path): cannot rename (\(reason))" }
            }
        }
        if let message = failure.withLock({ $0 }) { throw UserFacingError(message: "bench: \(message)", status: 1) }
        return missing.count
    }
}
