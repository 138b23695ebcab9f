"""Writes the benchmark's source images into FOLDER: COUNT generated 2400 x 1600 JPEGs (smooth
gradients with noise, as a photo compresses), and the photos of ../shared/corpus/real when present
(JPEG files of 50 KB and more: the corpus' small JPEGs are format edge cases, not photos).
Usage: make_images.py FOLDER COUNT [CORPUS_REAL]"""
import os
import random
import shutil
import sys

from PIL import Image

folder, count = sys.argv[1], int(sys.argv[2])
corpus = sys.argv[3] if len(sys.argv) > 3 else None
os.makedirs(folder, exist_ok=True)
random.seed(7)
for index in range(count):
    path = os.path.join(folder, "gen-%02d.jpg" % index)
    if os.path.exists(path):
        continue
    small = Image.new("RGB", (48, 32))
    small.putdata([(random.randrange(256), random.randrange(256), random.randrange(256)) for _ in range(48 * 32)])
    image = small.resize((2400, 1600), Image.BICUBIC)
    noise = Image.effect_noise((2400, 1600), 24).convert("RGB")
    Image.blend(image, noise, 0.15).save(path, "JPEG", quality=90)
if corpus and os.path.isdir(corpus):
    for root, _, names in os.walk(corpus):
        for name in names:
            source = os.path.join(root, name)
            with open(source, "rb") as handle:
                is_jpeg = handle.read(2) == b"\xff\xd8"
            if name.lower().endswith((".jpg", ".jpeg")) and is_jpeg and os.path.getsize(source) >= 50_000:
                shutil.copy(os.path.join(root, name), os.path.join(folder, "real-" + name))
