// A data grid's first page: MUI X DataGrid, rows fetched from api/permits.json, ten rows per page.
// Every row carries its own permit link (the record's detail page), the applicant and the summary.
import '../../shared/base.css';
import { createRoot } from 'react-dom/client';
import { useEffect, useState } from 'react';
import { DataGrid } from '@mui/x-data-grid';

const columns = [
  {
    field: 'id', headerName: 'Permit', width: 110,
    renderCell: (params) => <a className="permit-link" href={`permits/${params.value}.html`}>{params.value}</a>,
  },
  {
    field: 'filedBy', headerName: 'Applicant', width: 190,
    renderCell: (params) => <a className="applicant-link" href={`applicants/${params.row.applicant}/`}>{params.value}</a>,
  },
  { field: 'summary', headerName: 'Summary', flex: 1, minWidth: 320 },
  { field: 'status', headerName: 'Status', width: 140 },
  { field: 'filed', headerName: 'Filed', width: 110 },
];

function Register() {
  const [rows, setRows] = useState([]);
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    fetch('api/permits.json').then((response) => response.json()).then((data) => { setRows(data.permits); setLoading(false); });
  }, []);
  return (
    <div style={{ width: '100%' }}>
      <DataGrid
        rows={rows}
        columns={columns}
        loading={loading}
        autoHeight
        disableVirtualization
        getRowHeight={() => 'auto'}
        initialState={{ pagination: { paginationModel: { pageSize: 10, page: 0 } } }}
        pageSizeOptions={[10, 25]}
        disableRowSelectionOnClick
      />
    </div>
  );
}

function Page() {
  return (
    <>
      <header className="masthead">
        <a className="logo" href="./">Port of Calder Bay</a>
        <p className="tagline">Harbour authority services</p>
        <nav><ul className="sections">
          <li><a href="moorings/">Moorings</a></li><li><a href="notices/">Notices to mariners</a></li>
          <li><a href="tides/">Tide tables</a></li><li><a href="fees/">Harbour dues</a></li>
        </ul></nav>
      </header>
      <div className="layout" style={{ gridTemplateColumns: 'minmax(0,1fr)' }}>
        <main>
          <h1>Mooring permit register</h1>
          <p>Applications received by the harbour master, newest first. Each permit links to its full record, survey notes and conditions.</p>
          <Register />
        </main>
      </div>
      <footer className="site-footer">
        <ul><li><a href="contact/">Harbour office</a></li><li><a href="byelaws/">Harbour byelaws</a></li><li><a href="accessibility/">Accessibility</a></li></ul>
        <p>Port of Calder Bay Harbour Authority</p>
      </footer>
    </>
  );
}

createRoot(document.getElementById('root')).render(<Page />);
