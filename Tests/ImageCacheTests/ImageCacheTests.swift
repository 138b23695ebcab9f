// Tests for ImageCache live beside this file, one suite per concern.
