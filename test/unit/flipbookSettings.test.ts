// The flipbook page's Availability line says what the reader's Download button gives: a PDF
// always, the upload itself or the one made of a converted upload (a tester found a .docx
// flipbook promising "the original PDF").
import { describe, expect, it } from 'vitest';
import { whatReadersGet } from '../../src/dashboard/pages/flipbookSettings.ts';

const versions = (active: string, other = 'pdf') => [
  { is_active: false, file_type: other },
  { is_active: true, file_type: active },
];

describe('what the flipbook page says readers download', () => {
  it('names the PDF for a PDF upload, and the PDF made of a converted one by its kind', () => {
    expect(whatReadersGet(versions('pdf', 'docx'))).toBe('the original PDF');
    expect(whatReadersGet(versions('docx'))).toBe('a PDF made of the uploaded .docx file');
    expect(whatReadersGet(versions('pptx'))).toBe('a PDF made of the uploaded .pptx file');
    expect(whatReadersGet(versions('zip'))).toBe('a PDF made of the uploaded images');
  });

  it('speaks of the PDF before any version is active', () => {
    expect(whatReadersGet([])).toBe('the original PDF');
  });
});
