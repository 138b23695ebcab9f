"""What a cold thumbnail costs Pillow as thumbor uses it: `draft` (the JPEG decoder's own scaling),
`thumbnail` with Lanczos, a JPEG save at quality 85; ten times per size, processor ms each.
Usage: pillow.py photo.jpg"""
import io
import sys
import time

from PIL import Image

data = open(sys.argv[1], "rb").read()
for side in (128, 256, 640, 1160):
    start = time.process_time()
    for _ in range(10):
        image = Image.open(io.BytesIO(data))
        width, height = image.size
        scale = side / max(width, height)
        image.draft("RGB", (int(width * scale), int(height * scale)))
        image = image.convert("RGB")
        image.thumbnail((side, side), Image.LANCZOS)
        image.save(io.BytesIO(), "JPEG", quality=85)
    print("thumbnail to %d px: %.1f ms" % (side, (time.process_time() - start) * 100))
