// The hardened LibreOffice profile every conversion starts from (issue 45, officePdf.ts): its
// registrymodifications.xcu, written into a fresh profile folder per conversion. A TypeScript
// constant rather than a file beside the code: it ships with the module (no asset to copy or
// find at run time) and a test can read it. Each key was checked to exist in LibreOffice 7.4
// (/usr/lib/libreoffice/share/registry/main.xcd):
// - macros never run: security level 3 and DisableMacrosExecution (this beats even a caller's
//   "always execute"), VBA neither loaded nor executable in Writer, Calc and Impress;
// - nothing fetched: BlockUntrustedRefererLinks stops linked http:// and file:// images (without
//   it a file:// image was embedded in the PDF: a local-file disclosure), link updates off, and
//   a dead proxy (127.0.0.1:9) for whatever else would go out;
// - no first-run work: no OpenCL probe, no tip of the day, no update check.
const item = (path: string, name: string, value: string) =>
  `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`;

const SECURITY = '/org.openoffice.Office.Common/Security/Scripting';
const INET = '/org.openoffice.Inet/Settings';
const VBA = (app: string) => `/org.openoffice.Office.${app}/Filter/Import/VBA`;

export const HARDENED_PROFILE = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
  item(SECURITY, 'MacroSecurityLevel', '3'),
  item(SECURITY, 'DisableMacrosExecution', 'true'),
  item(SECURITY, 'BlockUntrustedRefererLinks', 'true'),
  item('/org.openoffice.Office.Common/Load', 'UpdateDocMode', '0'),
  item('/org.openoffice.Office.Writer/Content/Update', 'Link', '0'),
  item('/org.openoffice.Office.Calc/Content/Update', 'Link', '1'),
  item(VBA('Writer'), 'Load', 'false'),
  item(VBA('Writer'), 'Executable', 'false'),
  item(VBA('Calc'), 'Load', 'false'),
  item(VBA('Calc'), 'Executable', 'false'),
  item(VBA('Impress'), 'Load', 'false'),
  item('/org.openoffice.Office.Common/Misc', 'UseOpenCL', 'false'),
  item('/org.openoffice.Office.Common/Misc', 'FirstRun', 'false'),
  item('/org.openoffice.Office.Common/Misc', 'ShowTipOfTheDay', 'false'),
  item(
    "/org.openoffice.Office.Jobs/Jobs/org.openoffice.Office.Jobs:Job['UpdateCheck']/Arguments",
    'AutoCheckEnabled',
    'false',
  ),
  item(INET, 'ooInetProxyType', '2'),
  item(INET, 'ooInetHTTPProxyName', '127.0.0.1'),
  item(INET, 'ooInetHTTPProxyPort', '9'),
  item(INET, 'ooInetHTTPSProxyName', '127.0.0.1'),
  item(INET, 'ooInetHTTPSProxyPort', '9'),
  '</oor:items>',
  '',
].join('\n');
