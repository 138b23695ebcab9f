#!/usr/bin/env python3
"""Writes one input of each hostile class the decoding budgets and isolation answer to into the
folder given (make-hostile-inputs.py DIR). Each is small on the wire and costly to decode as it
claims to be; none is needed by the library or its tests (which make their own)."""
import base64, os, struct, sys, zlib

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def write(name, data):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data.encode() if isinstance(data, str) else data)

def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)

def png(width, height, depth, colour, rows, extra=b''):
    """A PNG whose image data is `rows` (a function of the row index giving its filtered bytes), compressed as it goes."""
    compressor = zlib.compressobj(9)
    data = b''.join(compressor.compress(rows(y)) for y in range(height)) + compressor.flush()
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, depth, colour, 0, 0, 0))
            + extra + chunk(b'IDAT', data) + chunk(b'IEND', b''))

def svg(body, size=100):
    return f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{size}" height="{size}">{body}</svg>'

small_rgb = lambda y: b'\x00' + b'\x80' * 48

# 1. A panic in librsvg: a convolution kernel of order 21.
write('svg-panic.svg', svg('<filter id="f"><feConvolveMatrix order="21" kernelMatrix="' + ' '.join(['1'] * 441)
                           + '"/></filter><rect width="100" height="100" fill="red" filter="url(#f)"/>'))
# 2. A 100 x 100 SVG drawing a 20000 x 20000 PNG from a data: URI.
inner = png(20000, 20000, 1, 0, lambda y: b'\x00' + b'\x00' * 2500)
write('svg-data-uri.svg', svg('<image width="100" height="100" href="data:image/png;base64,'
                              + base64.b64encode(inner).decode() + '"/>'))
# 3. Costs the element count does not see.
write('svg-turbulence.svg', svg('<filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="4000"/></filter>'
                                '<rect width="100" height="100" filter="url(#f)"/>'))
write('svg-long-text.svg', svg('<text x="0" y="50" font-size="4">' + ('lorem ipsum dolor ' * 1800) + '</text>'))
points = ' '.join(f'{(i * 37) % 100},{(i * 61) % 100}' for i in range(18000))
write('svg-markers.svg', svg('<defs><marker id="m" markerWidth="8" markerHeight="8"><circle cx="4" cy="4" r="4"/>'
                             '<circle cx="2" cy="2" r="1"/></marker></defs>'
                             f'<polyline points="{points}" marker-start="url(#m)" marker-mid="url(#m)" marker-end="url(#m)" fill="none" stroke="black"/>'))
write('svg-url-unterminated.svg', svg('<rect width="10" height="10" fill="' + 'url(#a ' * 14000 + '"/>'))
# 4. Ancillary chunks that inflate to megabytes each.
ztxt = chunk(b'zTXt', b'Comment\x00\x00' + zlib.compress(b'\x00' * (8 << 20), 9))
write('png-ztxt-78k.png', png(16, 16, 8, 2, small_rgb, ztxt * 10))
write('png-ztxt-310k.png', png(16, 16, 8, 2, small_rgb, ztxt * 40))
# 5. Icons libvips has no loader of its own for.
entry = png(256, 256, 8, 4, lambda y: b'\x00' + b'\x80\xff' * 256)
write('ico-grey-png.ico', struct.pack('<HHH', 0, 1, 1) + struct.pack('<BBBBHHII', 0, 0, 0, 0, 1, 32, len(entry), 22) + entry)
pixels = b''.join(bytes([(x * 7) & 255, (y * 3) & 255, 128, 255]) for y in range(256) for x in range(256))
mask = b'\x00' * (256 // 8 * 256)
dib = struct.pack('<IiiHHIIiiII', 40, 256, 512, 1, 32, 0, len(pixels) + len(mask), 0, 0, 0, 0) + pixels + mask
write('ico-bmp-256.ico', struct.pack('<HHH', 0, 1, 1) + struct.pack('<BBBBHHII', 0, 0, 0, 0, 1, 32, len(dib), 22) + dib)
bmp_pixels = b''.join(bytes([(x * 5) & 255, (y * 9) & 255, 60]) * 1 for y in range(512) for x in range(512))
write('bmp-512.bmp', b'BM' + struct.pack('<IHHI', 54 + len(bmp_pixels), 0, 0, 54)
      + struct.pack('<IiiHHIIiiII', 40, 512, 512, 1, 24, 0, len(bmp_pixels), 2835, 2835, 0, 0) + bmp_pixels)
# 6. Work bounded by pixels, not bytes of pixels: 16-bit RGBA at exactly 100 megapixels.
row16 = b'\x00' + b'\x00' * (10000 * 8)
write('png-16bit-100mp.png', png(10000, 10000, 16, 6, lambda y: row16))
