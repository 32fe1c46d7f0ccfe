/// The image file formats whose size `ImageHeader` can read.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case png, jpeg, webp, gif, bmp
}
