// libFuzzer target: the image-header reader (CanopyGraphics' ImageHeader), linked against the
// CanopyGraphics module that Fuzz/run builds with coverage.
//
// For any bytes, ImageHeader.read(bytes:path:) gives a header or throws an ImageError (its typed
// throws allow nothing else); it must never trap. A header has both sides from 1 to
// ImageHeader.maximumSide. The same bytes in a file, read with read(contentsOf:) (which reads a
// window of 64 KiB and seeks past it), give the same header or the same error. An input that
// starts with A5 n stands for a JPEG whose first (n & 7) + 1 segments are 64 KiB APP1 segments,
// followed by the rest of the input, so that the file variant must move its window.
@testable import CanopyGraphics
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One scratch file, rewritten for each input.
private let scratchPath: String = {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    return "\(directory)/fuzz-image-header-\(getpid())"
}()

private let scratch: Int32 = {
    let descriptor = open(scratchPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(descriptor >= 0, "cannot create \(scratchPath)")
    atexit { unlink(scratchPath) }
    return descriptor
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func imageHeaderFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = expand([UInt8](UnsafeBufferPointer(start: data, count: size)))
    let fromBytes = Result { () throws(ImageError) in try ImageHeader.read(bytes: bytes, path: scratchPath) }
    if case .success(let header) = fromBytes {
        let limit = ImageHeader.maximumSide
        require((1...limit).contains(header.width) && (1...limit).contains(header.height), "size of \(header)")
    }

    require(ftruncate(scratch, 0) == 0, "ftruncate")
    let written = bytes.withUnsafeBytes { pwrite(scratch, $0.baseAddress, $0.count, 0) }
    require(written == bytes.count, "pwrite")
    let fromFile = Result { () throws(ImageError) in try ImageHeader.read(contentsOf: scratchPath) }
    require(fromFile == fromBytes, "bytes gave \(fromBytes), the file \(fromFile)")
    return 0
}

/// The input as given, or, after A5 n, a JPEG of (n & 7) + 1 big segments and the input's rest.
private func expand(_ input: [UInt8]) -> [UInt8] {
    guard input.count >= 2, input[0] == 0xA5 else { return input }
    var file: [UInt8] = [0xFF, 0xD8]
    for _ in 0...(Int(input[1]) & 7) {
        file += [0xFF, 0xE1, 0xFF, 0xFF]  // APP1, length 65,535 (which counts itself)
        file += [UInt8](repeating: 0, count: 0xFFFF - 2)
    }
    return file + input.dropFirst(2)
}

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
