// The codec is its own module so that authctl can use the same parser without linking OpenSSL;
// everything that uses BrokerHTTP sees it as part of BrokerHTTP.
@_exported import WireFormats
