// Numbers as GATK writes them into a VCF: Java's String.format("%.Nf") / ("%.Ne") and htsjdk's
// VCFEncoder.formatVCFDouble.
//
// Java's Formatter does not round the binary value the way C's printf does. It takes the decimal
// digits of the double (java.util.Formatter -> jdk.internal.math.FormattedFloatingDecimal, digits
// from FloatingDecimal: the short decimal string that reads back as the same double) and rounds
// those digits HALF_UP (FormattedFloatingDecimal.applyPrecision). So 0.0015 (binary 0.00149999...)
// is "0.002" in Java and "0.001" in C, and 0.125 is "0.13" in Java and "0.12" in C. We take the
// shortest round-trip digits (std::to_chars) and round them half up. Old JDK FloatingDecimal can
// emit one digit more than the shortest for a few doubles; that changes the output only when that
// extra digit decides a tie at the rounding position, which we accept.
//
// Sign: Java prints "-" for any value with Double.compare(v, 0.0) < 0, negative zero included
// ("-0.000"); NaN prints "NaN" and infinities "Infinity" / "-Infinity".
//
// @code
//   java_format_fixed(0.0015, 3) == "0.002";  java_format_fixed(13.645, 2) == "13.65";
//   java_format_scientific(0.001234, 3) == "1.234e-03";
//   vcf_format_double(0.5) == "0.500";  vcf_format_double(1.0) == "1.00";
//   vcf_format_double(0.005) == "5.000e-03";  vcf_format_double(0.0) == "0.00";
// @endcode
#pragma once

#include <string>

namespace gpp::stages::call {

/// Java String.format(Locale.US, "%.<decimals>f", value). decimals in [0, 30].
std::string java_format_fixed(double value, int decimals);

/// Java String.format(Locale.US, "%.<decimals>e", value): one digit, '.', decimals digits, 'e',
/// sign and at least two exponent digits. decimals in [0, 30].
std::string java_format_scientific(double value, int decimals);

/**
 * @brief htsjdk VCFEncoder.formatVCFDouble: how a Double attribute (AF, MLEAF) is written.
 *
 * value >= 1 (or NaN): "%.2f"; 0.01 <= value < 1: "%.3f"; |value| < 1e-20: "0.00"; any other
 * value below 0.01: "%.3e".
 */
std::string vcf_format_double(double value);

}  // namespace gpp::stages::call
