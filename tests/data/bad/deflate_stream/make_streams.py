#!/usr/bin/env python3
"""Writes a raw DEFLATE stream (RFC 1951) of one dynamic block that inflates to "AAAA" (a literal,
then a match of length 3 at distance 1), with the distance code lengths given, e.g.
  make_streams.py incomplete_distance_code.deflate 1,2   # 3/4 of the code space: invalid
  make_streams.py single_distance_code.deflate 1         # one 1-bit code: valid
and prints what zlib says of it."""
import sys, zlib
class W:
    def __init__(s): s.bits=[]
    def put(s, v, n):            # value, LSB first
        for i in range(n): s.bits.append((v>>i)&1)
    def code(s, c, n):           # Huffman code, MSB first
        for i in reversed(range(n)): s.bits.append((c>>i)&1)
    def bytes(s):
        b=s.bits+[0]*(-len(s.bits)%8)
        return bytes(sum(b[i+j]<<j for j in range(8)) for i in range(0,len(b),8))
def stream(dist_lengths):
    w=W(); w.put(1,1); w.put(2,2)
    w.put(1,5); w.put(len(dist_lengths)-1,5); w.put(15,4)
    order=[16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1,15]
    cl={18:1,1:2,2:2}
    for s in order: w.put(cl.get(s,0),3)
    codes={18:(0,1),1:(2,2),2:(3,2)}
    def sym(s): w.code(*codes[s])
    sym(18); w.put(65-11,7)        # 65 zeros
    sym(1)                          # 'A' length 1
    sym(18); w.put(138-11,7); sym(18); w.put(52-11,7)  # 190 zeros
    sym(2); sym(2)                  # 256, 257: length 2
    for l in dist_lengths: sym(l)
    w.code(0,1)                     # 'A'
    w.code(3,2); w.code(0,1)        # length 3, distance 1
    w.code(2,2)                     # end of block
    return w.bytes()
name, lengths = sys.argv[1], [int(x) for x in sys.argv[2].split(',')]
data = stream(lengths)
try:
    print(name, 'zlib:', zlib.decompressobj(-15).decompress(data))
except zlib.error as e:
    print(name, 'zlib:', e)
open(name,'wb').write(data)
