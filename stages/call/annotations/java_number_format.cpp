// Java Formatter's %.Nf / %.Ne and htsjdk's formatVCFDouble (see java_number_format.hpp): HALF_UP
// rounding of the double's shortest decimal digits (FormattedFloatingDecimal.applyPrecision,
// fillDecimal, fillScientific).
#include "stages/call/annotations/java_number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace gpp::stages::call {
namespace {

/// |value| = 0.d1 d2 d3 ... x 10^exponent (FloatingDecimal's decExponent convention).
struct DecimalDigits {
  std::string digits;
  int exponent = 0;
};

/// Shortest digits that read back as |value| (value finite, non-zero).
DecimalDigits shortest_digits(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value),
                                    std::chars_format::scientific);
  const std::string text(buffer, result.ptr);  // d[.ddd]e[+-]xx
  const std::size_t e = text.find('e');
  DecimalDigits out;
  for (std::size_t i = 0; i < e; ++i) {
    if (text[i] != '.') out.digits += text[i];
  }
  while (out.digits.size() > 1 && out.digits.back() == '0') out.digits.pop_back();
  out.exponent = std::atoi(text.c_str() + e + 1) + 1;
  return out;
}

/// FormattedFloatingDecimal.applyPrecision: keep `keep` digits, rounding half up on the first
/// dropped digit; a carry out of the first digit makes "1" and raises the exponent.
void apply_precision(DecimalDigits& d, int keep) {
  const int count = static_cast<int>(d.digits.size());
  if (keep >= count || keep < 0) return;
  if (keep == 0) {
    if (d.digits[0] >= '5') {
      d.digits.assign(1, '1');
      d.exponent += 1;
    } else {
      d.digits.assign(1, '0');
    }
    return;
  }
  const bool round_up = d.digits[keep] >= '5';
  d.digits.resize(keep);
  if (!round_up) return;
  int i = keep - 1;
  while (i >= 0 && d.digits[i] == '9') {
    d.digits[i] = '0';
    --i;
  }
  if (i < 0) {
    d.digits.insert(d.digits.begin(), '1');
    d.digits.pop_back();
    d.exponent += 1;
  } else {
    d.digits[i] = static_cast<char>(d.digits[i] + 1);
  }
}

char digit_at(const std::string& digits, int i) {
  return i >= 0 && i < static_cast<int>(digits.size()) ? digits[i] : '0';
}

std::string non_finite(double value) {
  if (std::isnan(value)) return "NaN";
  return value < 0 ? "-Infinity" : "Infinity";
}

void check_decimals(int decimals) {
  if (decimals < 0 || decimals > 30) {
    throw Error("java number format: precision " + std::to_string(decimals) + " out of [0, 30]");
  }
}

}  // namespace

std::string java_format_fixed(double value, int decimals) {
  check_decimals(decimals);
  if (!std::isfinite(value)) return non_finite(value);
  std::string text = std::signbit(value) ? "-" : "";
  DecimalDigits d;
  if (value == 0.0) {
    d.digits = "0";
  } else {
    d = shortest_digits(value);
    apply_precision(d, d.exponent + decimals);
  }
  // Integer part: digits 0 .. exponent-1 (zeros past the last digit); "0" when exponent <= 0.
  if (d.exponent <= 0) {
    text += '0';
  } else {
    for (int i = 0; i < d.exponent; ++i) text += digit_at(d.digits, i);
  }
  if (decimals > 0) {
    text += '.';
    for (int i = 0; i < decimals; ++i) text += digit_at(d.digits, d.exponent + i);
  }
  return text;
}

std::string java_format_scientific(double value, int decimals) {
  check_decimals(decimals);
  if (!std::isfinite(value)) return non_finite(value);
  std::string text = std::signbit(value) ? "-" : "";
  DecimalDigits d;
  if (value == 0.0) {
    d.digits = "0";
    d.exponent = 1;  // prints e+00
  } else {
    d = shortest_digits(value);
    apply_precision(d, decimals + 1);
  }
  text += digit_at(d.digits, 0);
  if (decimals > 0) {
    text += '.';
    for (int i = 1; i <= decimals; ++i) text += digit_at(d.digits, i);
  }
  const int exponent = d.exponent - 1;
  text += exponent < 0 ? "e-" : "e+";
  const std::string magnitude = std::to_string(std::abs(exponent));
  if (magnitude.size() < 2) text += '0';
  text += magnitude;
  return text;
}

std::string vcf_format_double(double value) {
  if (value < 1) {
    if (value < 0.01) {
      if (std::fabs(value) >= 1e-20) return java_format_scientific(value, 3);
      return "0.00";
    }
    return java_format_fixed(value, 3);
  }
  return java_format_fixed(value, 2);
}

}  // namespace gpp::stages::call
