// Java-compatible number formatting (stages/call/annotations/java_number_format). Expected strings
// were printed by OpenJDK 17.0.15 String.format(Locale.US, ...) (the JDK GATK 4.6 runs on), and
// the formatVCFDouble cases follow htsjdk VCFEncoder.formatVCFDouble's branches.
#include "stages/call/annotations/java_number_format.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace gpp::stages::call {
namespace {

TEST(JavaFormatFixed, RoundsShortestDigitsHalfUp) {
  // C's printf gives 0.12, 0.001, 1.000, 13.64 for these (it rounds the binary value).
  EXPECT_EQ(java_format_fixed(0.125, 2), "0.13");
  EXPECT_EQ(java_format_fixed(0.0015, 3), "0.002");
  EXPECT_EQ(java_format_fixed(1.0005, 3), "1.001");
  EXPECT_EQ(java_format_fixed(13.645, 2), "13.65");
  EXPECT_EQ(java_format_fixed(0.0625, 3), "0.063");
  EXPECT_EQ(java_format_fixed(2.5, 0), "3");
  EXPECT_EQ(java_format_fixed(0.5, 0), "1");
  EXPECT_EQ(java_format_fixed(0.4, 0), "0");
  EXPECT_EQ(java_format_fixed(0.0005, 3), "0.001");
  EXPECT_EQ(java_format_fixed(0.00049999, 3), "0.000");
}

TEST(JavaFormatFixed, CarriesAndPads) {
  EXPECT_EQ(java_format_fixed(9.9995, 3), "10.000");
  EXPECT_EQ(java_format_fixed(999.9995, 3), "1000.000");
  EXPECT_EQ(java_format_fixed(1e20, 3), "100000000000000000000.000");
  EXPECT_EQ(java_format_fixed(123.456, 0), "123");
  EXPECT_EQ(java_format_fixed(0.000049, 3), "0.000");
  EXPECT_EQ(java_format_fixed(3.0102999566398116, 4), "3.0103");
  EXPECT_EQ(java_format_fixed(0.6931471805599453, 3), "0.693");
  EXPECT_EQ(java_format_fixed(59.0084739549, 2), "59.01");
  EXPECT_EQ(java_format_fixed(0.0, 2), "0.00");
}

TEST(JavaFormatFixed, SignsAndSpecialValues) {
  EXPECT_EQ(java_format_fixed(-0.0, 3), "-0.000");
  EXPECT_EQ(java_format_fixed(-0.0004, 3), "-0.000");
  EXPECT_EQ(java_format_fixed(-1.3829941271006392, 3), "-1.383");
  EXPECT_EQ(java_format_fixed(std::numeric_limits<double>::quiet_NaN(), 3), "NaN");
  EXPECT_EQ(java_format_fixed(std::numeric_limits<double>::infinity(), 2), "Infinity");
  EXPECT_EQ(java_format_fixed(-std::numeric_limits<double>::infinity(), 2), "-Infinity");
}

TEST(JavaFormatScientific, MatchesJava) {
  EXPECT_EQ(java_format_scientific(0.001234, 3), "1.234e-03");
  EXPECT_EQ(java_format_scientific(0.0012345, 3), "1.235e-03");
  EXPECT_EQ(java_format_scientific(9.9995e-5, 3), "1.000e-04");
  EXPECT_EQ(java_format_scientific(1e-100, 3), "1.000e-100");
  EXPECT_EQ(java_format_scientific(0.0, 3), "0.000e+00");
  EXPECT_EQ(java_format_scientific(0.005, 3), "5.000e-03");
  EXPECT_EQ(java_format_scientific(-0.004, 3), "-4.000e-03");
  EXPECT_EQ(java_format_scientific(1234.5, 3), "1.235e+03");
  EXPECT_EQ(java_format_scientific(1.0, 0), "1e+00");
}

TEST(VcfFormatDouble, FollowsHtsjdkBranches) {
  EXPECT_EQ(vcf_format_double(0.5), "0.500");  // AF of a het
  EXPECT_EQ(vcf_format_double(1.0), "1.00");   // AF of a hom-var
  EXPECT_EQ(vcf_format_double(0.25), "0.250");
  EXPECT_EQ(vcf_format_double(1.0 / 3), "0.333");
  EXPECT_EQ(vcf_format_double(2.0 / 3), "0.667");
  EXPECT_EQ(vcf_format_double(0.01), "0.010");
  EXPECT_EQ(vcf_format_double(0.005), "5.000e-03");
  EXPECT_EQ(vcf_format_double(1.0 / 2670), "3.745e-04");
  EXPECT_EQ(vcf_format_double(0.0), "0.00");
  EXPECT_EQ(vcf_format_double(1e-21), "0.00");
  EXPECT_EQ(vcf_format_double(12.345), "12.35");
  EXPECT_EQ(vcf_format_double(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

}  // namespace
}  // namespace gpp::stages::call
