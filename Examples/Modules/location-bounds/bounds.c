/*
 * example.location-bounds: the box around the places the access SQL read, widened to a grid of
 * `decimals` decimal digits, and how many places there were. Never a place itself.
 *
 * A compute module in C (docs/MODULES.md). It imports no network function, so the escrow tells the
 * individual it "cannot contact anything; only its output reaches the app".
 * Its Swift twin: the built-in function location.bounds (Sources/EscrowFunctions/LocationBounds.swift),
 * the same steps, so the same bits.
 */
#include "escrow_module.h"

/* 10^decimals, by multiplication (the same steps as the Swift twin, so the same bits). */
static double scale_of(int64_t decimals) {
    double scale = 1;
    for (int64_t i = 0; i < decimals; i++) scale *= 10;
    return scale;
}

ESCROW_RUN {
    escrow_frame input = escrow_input();
    escrow_column latitudes, longitudes;
    if (!escrow_frame_column(&input, "latitude", &latitudes) || !escrow_frame_column(&input, "longitude", &longitudes))
        ESCROW_FAIL("the input has no latitude and longitude columns");
    double scale = scale_of(escrow_parameter_int("decimals", 2));
    double south = 0, west = 0, north = 0, east = 0;
    int64_t count = 0;
    for (uint64_t row = 0; row < input.rows; row++) {
        if (escrow_is_null(&latitudes, row) || escrow_is_null(&longitudes, row)) continue;
        double latitude = escrow_double_at(&latitudes, row), longitude = escrow_double_at(&longitudes, row);
        if (count == 0 || latitude < south) south = latitude;
        if (count == 0 || latitude > north) north = latitude;
        if (count == 0 || longitude < west) west = longitude;
        if (count == 0 || longitude > east) east = longitude;
        count++;
    }
    escrow_writer output = escrow_writer_new(1);
    bool empty[1] = {count == 0};
    double values[4] = {
        __builtin_floor(south * scale) / scale, __builtin_floor(west * scale) / scale,
        __builtin_ceil(north * scale) / scale, __builtin_ceil(east * scale) / scale,
    };
    escrow_write_doubles(&output, "south", &values[0], empty);
    escrow_write_doubles(&output, "west", &values[1], empty);
    escrow_write_doubles(&output, "north", &values[2], empty);
    escrow_write_doubles(&output, "east", &values[3], empty);
    escrow_write_int64s(&output, "places", &count, 0);
    escrow_output(&output);
    return 0;
}
