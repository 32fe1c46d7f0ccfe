// libFuzzer target: embedded ICC profiles (CanopyGraphics' ColorProfiles over CCodecs' Little CMS
// code), linked against the CanopyGraphics module that Fuzz/run builds with coverage.
//
// The input is the profile, as a JPEG's APP2, a PNG's iCCP or a WebP's ICCP chunk would give it
// (Fuzz/run seeds it with the system's profiles); its byte 4, the first of the preferred CMM's
// signature, which Little CMS does not use, picks what the transform takes in (premultiplied
// RGBA, CMYK, inverted CMYK, opaque RGBA). Any profile gives a transform or none (a profile Little CMS cannot use,
// or one describing sRGB); it must never trap, leak or touch memory it does not own. A transform
// converts a row of test pixels, keeping each alpha (RGBA in) or making it opaque (CMYK in).
@testable import CanopyGraphics
import CCodecs
import Foundation

private let inputs: [Int32] = [
    Int32(CCODECS_COLOR_RGBA_PREMULTIPLIED), Int32(CCODECS_COLOR_CMYK), Int32(CCODECS_COLOR_CMYK_INVERTED),
    Int32(CCODECS_COLOR_RGBA_OPAQUE),
]

/// Eight pixels: black, white, grey at half alpha, primaries, a clear one.
private let pixels: [UInt8] = [
    0, 0, 0, 255, 255, 255, 255, 255, 64, 64, 64, 128, 255, 0, 0, 255,
    0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 40, 0, 0, 0, 0,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func colorProfileFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 5 else { return 0 }
    let input = inputs[Int(data[4]) % inputs.count]
    let opaque = input == Int32(CCODECS_COLOR_RGBA_OPAQUE)
    guard let transform = ColorProfiles.transform(profile: data, size: size, input: input) else { return 0 }
    // Opaque RGBA in: every alpha 255, as the decoder promises for that kind.
    var source = pixels
    if opaque { for i in stride(from: 3, to: source.count, by: 4) { source[i] = 255 } }
    var output = [UInt8](repeating: 0, count: source.count)
    source.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { out in
            ccodecs_color_transform_apply(transform.pointer, input.baseAddress, out.baseAddress, source.count / 4)
        }
    }
    let cmyk = input == Int32(CCODECS_COLOR_CMYK) || input == Int32(CCODECS_COLOR_CMYK_INVERTED)
    for i in stride(from: 3, to: output.count, by: 4) {
        let expected = cmyk ? 255 : source[i]
        if output[i] != expected { fatalError("alpha \(output[i]) at pixel \(i / 4), expected \(expected)") }
    }
    return 0
}
