/// A decompression bomb's header, for the tests of the pixel limit: a PNG that claims `width` x
/// `height` pixels (8-bit RGB), its image data garbage and its CRCs zero, so that reading a
/// single row of it fails as corrupt; failing as over the limit shows no pixel was read.
public func claimedPNG(width: Int, height: Int) -> [UInt8] {
    func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    let ihdr = Array("IHDR".utf8) + be32(width) + be32(height) + [8, 2, 0, 0, 0]
    let idat = Array("IDAT".utf8) + [UInt8](repeating: 0xA5, count: 64)
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ihdr + be32(0) + be32(64) + idat + be32(0)
}
